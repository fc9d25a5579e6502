"""Contract checks: the built-in macros pass every check; each broken macro fails exactly one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import DATA, REPO

from pytest_granularity.process.sandbox import probe
from pytest_granularity.run.contract_checks import CHECKS

BROKEN = DATA / "broken_macros"
WORKED_EXAMPLE = REPO / "examples" / "macros" / "rename-constant"
EXPECTED = {
    "undeclared-write": "side-effects",
    "write-outside": "side-effects",
    "missing-fallback": "fallback",
    "undeclared-class": "faults",
    "invalid-schema": "parameters",
    "bad-skill": "skill",
    "precondition-writes": "preconditions",
    "hang": "timeout",
    "write-elsewhere": "side-effects",
}
SANDBOX_PROBLEM = probe()
SANDBOXED_ONLY = {"write-elsewhere"}
"""Seen only by the sandbox; without one it would really write outside, so it is left out."""


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory):
    """One contract session over the built-ins and the broken macros, shared by the tests below.

    Sandboxed where bubblewrap works (as CI does), so that a write anywhere outside is caught too.
    """
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("contracts")
    sandbox = "none" if SANDBOX_PROBLEM else "bwrap"
    folders = [str(f) for f in sorted(BROKEN.iterdir()) if f.name in expected_failures()]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--granularity-contracts",
            f"--granularity-sandbox={sandbox}",
            *folders,
            str(WORKED_EXAMPLE),
            "-p",
            "no:cacheprovider",
            "-q",
            "-rfs",
            "-o",
            "addopts=",
            "--rootdir",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=out,
        timeout=600,
    )
    return run


def expected_failures() -> dict[str, str]:
    return {name: check for name, check in EXPECTED.items() if not (SANDBOX_PROBLEM and name in SANDBOXED_ONLY)}


def outcomes(output: str) -> dict[str, set[str]]:
    failed: dict[str, set[str]] = {}
    for macro, check in re.findall(r"^FAILED contracts/([\w-]+)::([\w-]+)", output, re.M):
        failed.setdefault(macro, set()).add(check)
    return failed


def test_every_broken_macro_is_caught_by_exactly_its_check(broken_run):
    failed = outcomes(broken_run.stdout)
    assert failed == {name: {check} for name, check in expected_failures().items()}, broken_run.stdout[-3000:]
    assert broken_run.returncode == 1


def test_the_builtin_macros_and_the_worked_example_pass_every_check(broken_run):
    for name in ("move-module", "replace-and-verify", "summarize-module", "rename-constant"):
        assert name not in outcomes(broken_run.stdout)
    total = len(CHECKS) * (4 + len(expected_failures()))
    counts = dict(
        re.findall(r"(\d+) (passed|failed|skipped)", broken_run.stdout.splitlines()[-1])[i][::-1] for i in range(3)
    )
    assert sum(int(v) for v in counts.values()) == total


def test_failures_read_as_evidence(broken_run):
    out = broken_run.stdout
    assert "macro write-outside" in out and re.search(r"the macro wrote outside the workspace: \S*outside\.txt", out)
    assert "undeclared_write created notes.txt, which its contract does not allow" in out
    assert "an early fault surfaced as executor_exception, which the contract does not declare" in out
    assert "the refusal changed the workspace: precondition.log" in out
    assert "did not finish within its timeout_seconds (1s)" in out
    if SANDBOX_PROBLEM:
        assert "without a sandbox the side-effects check sees writes in and next to the workspace, not elsewhere" in out
    else:
        assert "sandbox: bwrap (read-only root" in out


@pytest.mark.skipif(SANDBOX_PROBLEM is not None, reason=f"needs bubblewrap: {SANDBOX_PROBLEM}")
def test_a_write_anywhere_outside_is_caught_by_the_sandbox(broken_run):
    out = broken_run.stdout
    assert "the macro wrote outside the workspace: /tmp/granularity-write-elsewhere.txt (refused by the sandbox)" in out
    assert not Path("/tmp/granularity-write-elsewhere.txt").exists()
