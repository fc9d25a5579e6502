"""Hook specifications: the contract between pytest-granularity and other plugins.

A pytest plugin (installed through the ``pytest11`` entry point) or a ``conftest.py`` implements
these to register macros, agents and policies, to inject faults, and to see every finished run.
Each hook below carries a runnable example; ``docs/extending.md`` puts them together into one
worked plugin.

The registration hooks (macro folders, agents, policies) collect every plugin's answer: a name
registered twice (by two plugins, or by a plugin and pytest-granularity itself) is a usage error
naming both, never a silent override. None of the hooks is ``firstresult``: each either collects
registrations from every plugin or notifies every plugin, so stopping at the first answer would
drop the others.

The fault hooks are called at exactly two points of every macro call, so a fault is
deterministic: the same run injects at the same point every time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .agents import AgentFactory
    from .core.result import RunResult
    from .macros import MacroRegistry
    from .run.policies import Policy


@pytest.hookspec
def pytest_granularity_macro_early(macro: str, args: dict[str, Any], workspace: Path) -> None:
    """Called after a macro's preconditions passed and before its first side effect.

    Raise to inject an ``early`` fault: it is classified as ``executor_exception`` and the
    workspace is untouched.

    .. code-block:: python

        def pytest_granularity_macro_early(macro, args, workspace):
            if macro == "move_module" and args.get("dest", "").startswith("legacy/"):
                raise RuntimeError("moves into legacy/ are refused here")
    """


@pytest.hookspec
def pytest_granularity_macro_late(macro: str, args: dict[str, Any], workspace: Path) -> None:
    """Called after a macro's side effects and its own validation, before it reports success.

    Raise to inject a ``late`` fault: it is classified as ``executor_exception`` and the
    workspace holds all of the macro's changes.

    .. code-block:: python

        def pytest_granularity_macro_late(macro, args, workspace):
            if (workspace / "STOP").exists():
                raise RuntimeError(f"{macro} finished, but the workspace asked to stop")
    """


@pytest.hookspec
def pytest_granularity_macro_folders(config: pytest.Config) -> Sequence[Path]:
    """Return folders of macros to register: each holds a ``contract.yaml``, or holds such folders.

    They join the built-in macros and the ``--granularity-macros`` folder (or the
    ``granularity_macros`` ini key). Two macros of the same name are a usage error naming both
    folders.

    .. code-block:: python

        from pathlib import Path


        def pytest_granularity_macro_folders(config):
            return [Path(__file__).parent / "macros"]
    """
    return []


@pytest.hookspec
def pytest_granularity_agents(config: pytest.Config) -> Mapping[str, AgentFactory]:
    """Return agent factories by name, selectable with ``--granularity-agent=NAME``.

    A factory is called once per run with an :class:`~pytest_granularity.AgentSetup` and returns
    an :class:`~pytest_granularity.Agent` (see ``pytest_granularity.agents``). A name that
    pytest-granularity or another plugin also registers is a usage error naming both.

    .. code-block:: python

        from pytest_granularity import ToolCall


        class GiveUp:
            def __init__(self, setup):
                self.task = setup.task

            def next_call(self, messages, tools):
                return ToolCall("finish", {"summary": f"not attempting {self.task.id}"})


        def pytest_granularity_agents(config):
            return {"give-up": GiveUp}
    """
    return {}


@pytest.hookspec
def pytest_granularity_policies(config: pytest.Config, macros: MacroRegistry) -> Sequence[Policy]:
    """Return policies to register: ``--granularity=NAME`` selects one by its ``name``, as a built-in one.

    ``macros`` is the session's registry, for a policy that routes on the macros available.
    ``--granularity=all`` includes registered policies, and ``--granularity-recovery`` overrides
    their recovery like a built-in's. A name that pytest-granularity or another plugin also
    registers is a usage error naming both.

    .. code-block:: python

        from pytest_granularity import MACRO, MICRO, Policy


        def pytest_granularity_policies(config, macros):
            def route(task, workspace):
                return MACRO if "rename" in task.prompt.lower() else MICRO

            return [Policy("rename-first", route, recover=lambda event: True)]
    """
    return []


@pytest.hookspec
def pytest_granularity_run_finished(config: pytest.Config, result: RunResult) -> None:
    """Called with every run's record once its test has a report, in the process that writes the reports.

    With pytest-xdist that is the controller, so one implementation sees every run of the
    session; a run whose worker crashed arrives as an infrastructure-error record. Use it to
    stream records elsewhere while the benchmark is still running.

    .. code-block:: python

        import json


        def pytest_granularity_run_finished(config, result):
            with open(config.rootpath / "runs.jsonl", "a") as out:
                out.write(json.dumps(result.to_dict()) + "\\n")
    """
