"""The GitHub Actions workflow that gates a repository's pull requests on its benchmark.

One text for the workflow docs/gate.md prints to copy and the one ``granularity init`` writes: actions pinned to
the commit of the release named beside them, a read-only token not left in the checkout, no ``${{ }}`` value in a
shell script (zizmor checks both, tests/test_workflows_zizmor.py), and the package installed as
:func:`~pytest_granularity.core.distribution.requirement` says.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.distribution import requirement

HEAD = """\
name: {name}
on:
  pull_request:
permissions:
  contents: read                # the gate reads the code and the baseline, and writes nothing back
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262  # v4.4.0
        with:
{checkout}          persist-credentials: false
      - uses: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065  # v5.6.0
        with:
          python-version: "3.11"
"""

GATE_STEPS = """\
      - run: |                  # the sandbox for agent-written code (docs/sandbox.md)
          sudo apt-get install -y bubblewrap || {{ sudo apt-get update && sudo apt-get install -y bubblewrap; }}
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - run: python -m pip install '{requirement}'{install}
      - run: >-
{command}
"""


def workflow_head(name: str, checkout_options: str = "") -> str:
    """A workflow's start, up to its own steps: on pull requests, a read-only token, the checkout (with
    ``checkout_options``, lines of its ``with:``) and the Python the package supports first."""
    return HEAD.format(name=name, checkout=checkout_options)


def gate_workflow(pytest_arguments: Sequence[str], branch: str = "origin/main", also_install: str = "") -> str:
    """The workflow: its last step runs ``python -m pytest`` with each of ``pytest_arguments`` on a line of its own
    (folded into one command), after installing the package with the ``parallel`` extra and ``also_install`` (the
    repository's own install arguments, if any); the baseline is read from ``branch``."""
    lines = ["python -m pytest " + pytest_arguments[0], *pytest_arguments[1:]]
    fetch = f"          fetch-depth: 0          # lets the gate read the baseline from {branch}\n"
    return workflow_head("granularity", fetch) + GATE_STEPS.format(
        requirement=requirement(["parallel"]),
        install=f" {also_install}" if also_install else "",
        command="\n".join(f"          {line}" for line in lines),
    )
