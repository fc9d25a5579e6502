"""Collection: every ``task.yaml`` becomes one test item per policy, fault and epoch.

``<task>[hybrid]``, plus ``<task>[hybrid-early]`` and ``<task>[hybrid-late]`` for tasks that list
faults; with ``--granularity-epochs=N`` (N > 1) each of them N times, ``<task>[hybrid-e0]`` … An
item passes iff the task's verifier accepted the final workspace. The item's identity, and after
its run the run's record, travel in its reports' ``user_properties`` (so junitxml and
pytest-xdist carry them).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ..core.errors import GranularityError
from ..core.failures import FAULTS, Fault
from ..core.result import Outcome, RunIdentity, RunResult
from ..core.tasks import Task, TaskError, load_task
from ..macros.runtime import FaultOnce, FaultPoint, no_faults
from ..run.policies import Policy
from ..run.runner import run_task
from ..run.taskcheck import macro_call_problems
from .session import GranularitySession
from .stash import session_key


def task_faults(task: Task, fault_set: str) -> tuple[str, ...]:
    """The faults a macro-first policy runs ``task`` with: its declared ones, or with ``all`` early
    and late wherever the task has a reference macro call (so every family has faulted runs)."""
    if fault_set == "all" and task.macro is not None:
        return FAULTS
    return task.faults


class TaskFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        session = self.config.stash[session_key]
        settings = session.settings
        try:
            task = load_task(self.path)
        except TaskError as exc:
            raise self.CollectError(str(exc)) from None
        self._check_unique(session, task)
        problems = macro_call_problems(task, settings.run.macros)
        if problems:
            raise self.CollectError(f"{task.path}: {problems[0]}")
        baseline = settings.gate.baseline
        epochs = settings.epochs
        for policy in settings.policies:
            faults = (Fault.NONE, *task_faults(task, settings.fault_set)) if policy.uses_macros else (Fault.NONE,)
            for fault in faults:
                label = policy.name if fault == Fault.NONE else f"{policy.name}-{fault}"
                for epoch in range(epochs):
                    name = f"{task.id}[{label}]" if epochs == 1 else f"{task.id}[{label}-e{epoch}]"
                    item = TaskItem.from_parent(
                        self, name=name, callobj=_run_item, task=task, policy=policy, fault=fault, epoch=epoch
                    )
                    entry = session.baseline_entry(task.id, policy.name, fault)
                    if baseline is not None and entry is not None and not entry.success:
                        item.add_marker(
                            pytest.mark.xfail(reason=f"failed in the baseline {baseline.source}", strict=False)
                        )
                    yield item

    def _check_unique(self, session: GranularitySession, task: Task) -> None:
        other = session.task_paths.setdefault(task.id, task.path)
        if other != task.path:
            raise self.CollectError(
                f"{task.path}: field 'id': '{task.id}' is also the id of {other}; task ids must be unique"
            )


def in_shard(items: list[pytest.Item], shard: tuple[int, int]) -> list[pytest.Item]:
    """Shard I of N: every N-th task in sorted order, all of its runs together (other items stay)."""
    index, count = shard
    tasks = sorted({item.task.id for item in items if isinstance(item, TaskItem)})
    chosen = {task for position, task in enumerate(tasks) if position % count == index - 1}
    return [item for item in items if not isinstance(item, TaskItem) or item.task.id in chosen]


class RunFailed(GranularityError):
    """The verifier did not accept the run (or the run could not be made), or it regressed."""

    def __init__(self, result: RunResult, regression: str | None = None) -> None:
        super().__init__(regression or result.summary())
        self.result = result
        self.regression = regression


class TaskItem(pytest.Function):
    def __init__(self, *, task: Task, policy: Policy, fault: str, epoch: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.policy = policy
        self.fault = fault
        self.epoch = epoch
        self.add_marker(pytest.mark.granularity(policy.name, fault))

    @property
    def identity(self) -> RunIdentity:
        return RunIdentity(self.task.id, self.task.family, self.policy.name, self.fault, self.epoch)

    def setup(self) -> None:
        """The identity goes in first, so even the setup report says which run this is."""
        self.user_properties.append(self.identity.to_property())
        super().setup()

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, RunFailed):
            return _describe_failure(excinfo.value.result, excinfo.value.regression)
        return super().repr_failure(excinfo)


class _FaultInjector:
    """Raises at one fault point, on the first macro call of the run only (``FaultOnce``), through the hooks."""

    def __init__(self, point: str) -> None:
        self.once = FaultOnce(point)

    def pytest_granularity_macro_early(self, macro: str, args: dict[str, Any], workspace: Path) -> None:
        self.once(Fault.EARLY, macro, args, workspace)

    def pytest_granularity_macro_late(self, macro: str, args: dict[str, Any], workspace: Path) -> None:
        self.once(Fault.LATE, macro, args, workspace)


@contextmanager
def injected_fault(pluginmanager: pytest.PytestPluginManager, fault: str) -> Iterator[str]:
    """While open, ``fault`` (``early`` or ``late``) is raised through the macro fault hooks."""
    if fault == Fault.NONE:
        yield fault
        return
    injector = _FaultInjector(fault)
    pluginmanager.register(injector, f"granularity-fault-{id(injector)}")
    try:
        yield fault
    finally:
        pluginmanager.unregister(injector)


def _run_item(request: pytest.FixtureRequest, granularity_fault: str) -> None:
    item: TaskItem = request.node
    config = item.config
    session = config.stash[session_key]

    def fault_point(point: str, macro: str, args: dict[str, Any], root: Path) -> None:
        getattr(config.hook, f"pytest_granularity_macro_{point}")(macro=macro, args=args, workspace=root)

    result = run_task(item.task, item.policy, item.fault, session.settings.run, _point(config, fault_point), item.epoch)
    item.user_properties.append(result.to_property())
    regression = session.regression(result)
    if regression or not result.success:
        if result.outcome != Outcome.ERROR and session.judged_over_epochs(*result.key):
            pytest.xfail(
                f"epoch {result.epoch} rejected; the gate judges {result.task} "
                f"[{result.policy}, fault {result.fault}] over all epochs"
            )
        raise RunFailed(result, regression)


def _point(config: pytest.Config, hooks: FaultPoint) -> FaultPoint:
    """The run's fault point: the hooks while any other plugin implements them (each call must reach it), else
    the run's own injected fault (``FaultOnce``) or none, which a replayed call honours (``macros.call_memo``)."""
    plugins = {
        impl.plugin
        for hook in (config.hook.pytest_granularity_macro_early, config.hook.pytest_granularity_macro_late)
        for impl in hook.get_hookimpls()
    }
    injectors = [plugin for plugin in plugins if isinstance(plugin, _FaultInjector)]
    if len(injectors) < len(plugins):
        return hooks
    return injectors[0].once if injectors else no_faults


def _describe_failure(result: RunResult, regression: str | None = None) -> str:
    if regression:
        head = regression
    elif result.outcome == Outcome.ERROR:
        head = f"INFRASTRUCTURE ERROR (not an agent failure): {result.error}"
    else:
        head = "verifier rejected the final workspace"
    changed = ", ".join(result.created + result.modified + result.deleted) or "none"
    lines = [head, f"run: {result.summary()}", f"changed paths: {changed}"]
    if result.transitions:
        lines.append("transitions: " + " | ".join(result.transitions))
    lines.extend(["--- verifier output (tail) ---", result.verifier_output])
    return "\n".join(lines)
