"""The pytest plugin: every ``task.yaml`` becomes one test per policy (and fault).

``pytest --granularity=micro benchmark_tasks`` collects ``<task-id>[micro]`` items. An item
passes iff the task's verifier accepted the final workspace. Each run's record travels in the
test report's ``user_properties`` (so junitxml and pytest-xdist carry it) and the controller
collects them for the table at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .metrics import summarize
from .report import render_table
from .result import ERROR, RunResult
from .runner import RunSettings, run_task
from .tasks import TASK_FILE, TaskError, load_task

POLICIES = ("micro",)
RECORD_KEY = "granularity_run"
collector_key = pytest.StashKey["RunCollector"]()
settings_key = pytest.StashKey[RunSettings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("granularity", "skill granularity benchmark (pytest-granularity)")
    group.addoption(
        "--granularity",
        action="store",
        default=None,
        metavar="POLICY[,POLICY]",
        help=f"run every task.yaml under the given paths with these policies ({', '.join(POLICIES)}, or all).",
    )
    group.addoption("--granularity-agent", default=None, metavar="NAME", help="agent to drive (default: reference).")
    group.addoption("--granularity-max-steps", type=int, default=None, metavar="N", help="step limit per run (default: the task's, else 40).")
    parser.addini("granularity_agent", "agent to drive (default: reference)", default="reference")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "granularity(policy, fault): a pytest-granularity benchmark run")
    policies = selected_policies(config)
    if not policies:
        return
    config.stash[settings_key] = RunSettings(agent=_agent_factory(config), max_steps=config.getoption("--granularity-max-steps"))
    collector = RunCollector(config)
    config.stash[collector_key] = collector
    config.pluginmanager.register(collector, "granularity-collector")


def selected_policies(config: pytest.Config) -> tuple[str, ...]:
    value = config.getoption("--granularity", None)
    if not value:
        return ()
    names = [n.strip() for n in value.split(",") if n.strip()]
    if "all" in names:
        return POLICIES
    unknown = [n for n in names if n not in POLICIES]
    if unknown:
        raise pytest.UsageError(f"--granularity: unknown policy {', '.join(unknown)}; choose from {', '.join(POLICIES)} or all")
    return tuple(dict.fromkeys(names))


def _agent_factory(config: pytest.Config) -> Any:
    from .agents import builtin_agents

    name = config.getoption("--granularity-agent") or config.getini("granularity_agent")
    agents = builtin_agents()
    if name not in agents:
        raise pytest.UsageError(f"--granularity-agent: unknown agent '{name}'; known: {', '.join(sorted(agents))}")
    return agents[name]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A task folder's setup, solution and hidden verifier are data, never tests of their own."""
    if collection_path.name != TASK_FILE and (collection_path.parent / TASK_FILE).is_file():
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == TASK_FILE and settings_key in parent.config.stash:
        return TaskFile.from_parent(parent, path=file_path)
    return None


class TaskFile(pytest.File):
    def collect(self) -> list[pytest.Item]:
        try:
            task = load_task(self.path)
        except TaskError as exc:
            raise self.CollectError(str(exc)) from None
        return [
            TaskItem.from_parent(self, name=f"{task.id}[{policy}]", callobj=_run_item, task=task, policy=policy, fault="none")
            for policy in selected_policies(self.config)
        ]


class RunFailed(Exception):
    """The verifier did not accept the run (or the run could not be made)."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(result.summary())
        self.result = result


class TaskItem(pytest.Function):
    def __init__(self, *, task: Any, policy: str, fault: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.policy = policy
        self.fault = fault
        self.add_marker(pytest.mark.granularity(policy, fault))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RunFailed):
            return _describe_failure(excinfo.value.result)
        return super().repr_failure(excinfo, style)


def _run_item(request: pytest.FixtureRequest) -> None:
    item: TaskItem = request.node
    result = run_task(item.task, item.policy, item.fault, item.config.stash[settings_key])
    item.user_properties.append((RECORD_KEY, json.dumps(result.to_dict(), sort_keys=True)))
    if not result.success:
        raise RunFailed(result)


def _describe_failure(result: RunResult) -> str:
    head = "INFRASTRUCTURE ERROR (not an agent failure): " + (result.error or "") if result.outcome == ERROR else "verifier rejected the final workspace"
    changed = ", ".join(result.created + result.modified + result.deleted) or "none"
    return f"{head}\nrun: {result.summary()}\nchanged paths: {changed}\n--- verifier output (tail) ---\n{result.verifier_output}"


class RunCollector:
    """Session state, registered as a plugin so its hooks see it: the controller's run records."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.results: list[RunResult] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        self.results.extend(
            RunResult.from_dict(json.loads(value)) for name, value in report.user_properties if name == RECORD_KEY
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        terminalreporter.section("granularity")
        if not self.results:
            terminalreporter.write_line("no benchmark runs were made")
            return
        terminalreporter.write_line(render_table(summarize(sorted(self.results, key=lambda r: r.key))))
