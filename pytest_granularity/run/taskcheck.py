"""Proving a task honest: its verifier fails on the untouched workspace and passes on the
reference solution, the project's own tests pass on that solution, and no cheating agent
(``adversaries``) gets its untouched workspace accepted.

A task that fails any of these would let a do-nothing or cheating agent pass, or no agent
pass; either makes every number built on it meaningless.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..core.schemas import first_error
from ..core.tasks import Task, TaskError, load_task
from ..core.workspace import Workspace, WorkspaceError, read_tree, remove_kept_folders_at_exit, solution_files
from ..macros import MacroRegistry
from ..process.pytest_process import run_pytest
from ..process.sandbox import NO_SANDBOX, Sandbox
from ..verifier.adversaries import ADVERSARIES
from ..verifier.verify import Verdict, verify
from .interface import interface, unnamed


@dataclass(frozen=True)
class TaskCheck:
    path: Path
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_task_file(
    path: Path, macros: MacroRegistry, adversaries: bool = True, sandbox: Sandbox = NO_SANDBOX
) -> TaskCheck:
    """``sandbox`` is where the verifiers, the project's tests and the cheats run: a check runs a task's code as a
    benchmark run does, so in the same sandbox (``--granularity-sandbox``)."""
    try:
        task = load_task(path)
    except TaskError as exc:
        return TaskCheck(Path(path), (str(exc),))
    try:
        cheats = _cheat_problems(task, sandbox) if adversaries else []
        return TaskCheck(task.path, tuple(macro_call_problems(task, macros) + _problems(task, sandbox) + cheats))
    except WorkspaceError as exc:
        return TaskCheck(task.path, (str(exc),))


def check_task_files(
    files: Sequence[Path], macros: MacroRegistry, adversaries: bool = True, jobs: int = 1, sandbox: Sandbox = NO_SANDBOX
) -> Iterator[TaskCheck]:
    """Each file's check, in the files' order, ``jobs`` at a time (each task's checks are pytest runs
    of their own: nothing is shared between tasks, so they spread over the cores)."""
    shared = _shared_ids(files)
    for check in _checks(files, macros, adversaries, jobs, sandbox):
        others = shared.get(check.path, [])
        taken = [f"id: '{others[0]}' is also the id of {', '.join(others[1:])}"] if others else []
        yield TaskCheck(check.path, (*taken, *check.problems))


def _checks(
    files: Sequence[Path], macros: MacroRegistry, adversaries: bool, jobs: int, sandbox: Sandbox
) -> Iterator[TaskCheck]:
    try:
        if jobs <= 1 or len(files) <= 1:
            yield from (check_task_file(path, macros, adversaries, sandbox) for path in files)
            return
        _shared[:] = [(macros, adversaries, sandbox)]  # forked workers inherit it: a registry is not sent, it is there
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(
            min(jobs, len(files)), mp_context=context, initializer=worker_started, initargs=(sandbox,)
        ) as pool:
            yield from pool.map(_check_shared, files)
    finally:
        sandbox.servers.stop()


def _shared_ids(files: Sequence[Path]) -> dict[Path, list[str]]:
    """Task file -> [its id, the other files with that id, ...], for ids two files share: a run's key is the task's
    id, so one task's runs would count as the other's. A file that does not load is its own check's problem."""
    by_id: dict[str, list[Path]] = {}
    for path in files:
        try:
            task = load_task(path)
        except TaskError:
            continue
        by_id.setdefault(task.id, []).append(task.path)
    return {
        path: [task_id, *(str(other) for other in paths if other != path)]
        for task_id, paths in by_id.items()
        if len(paths) > 1
        for path in paths
    }


_shared: list[tuple[MacroRegistry, bool, Sandbox]] = []


def worker_started(sandbox: Sandbox) -> None:
    """A pool's initializer: a worker runs its tasks in one kept folder, served by warm pytests in ``sandbox``;
    both go when it ends (a pool ends its workers without running ``atexit``)."""
    multiprocessing.util.Finalize(None, _worker_ending, args=(sandbox,), exitpriority=0)


def _worker_ending(sandbox: Sandbox) -> None:
    sandbox.servers.stop()
    remove_kept_folders_at_exit()


def _check_shared(path: Path) -> TaskCheck:
    macros, adversaries, sandbox = _shared[0]
    return check_task_file(path, macros, adversaries, sandbox)


def adversary_verdicts(task: Task, sandbox: Sandbox = NO_SANDBOX) -> dict[str, Verdict]:
    """Each cheating agent's verdict on the task's untouched workspace (the first failing test decides)."""
    verdicts = {}
    for adversary in ADVERSARIES:
        with Workspace.for_task(task, reuse=True) as workspace:
            adversary.plant(workspace.root)
            verdicts[adversary.name] = verify(task, workspace, sandbox, first_failure=True)
    return verdicts


def _cheat_problems(task: Task, sandbox: Sandbox) -> list[str]:
    does = {a.name: a.does for a in ADVERSARIES}
    return [
        f"the cheating agent '{name}' ({does[name]}) passes the verifier"
        for name, verdict in adversary_verdicts(task, sandbox).items()
        if verdict.accepted
    ]


def macro_call_problems(task: Task, macros: MacroRegistry) -> list[str]:
    """What is wrong with the task's reference macro call: an unknown macro, or arguments its schema refuses."""
    if task.macro is None:
        return []
    macro = macros.get(task.macro.skill)
    if macro is None:
        return [f"macro.skill: no macro named '{task.macro.skill}' (known: {', '.join(macros.names)})"]
    error = first_error(macro.parameters, task.macro.args)
    return [f"macro.args.{error[0]}: {error[1]}"] if error else []


def _problems(task: Task, sandbox: Sandbox) -> list[str]:
    problems = []
    with Workspace.for_task(task, reuse=True) as untouched:
        parent = untouched.initial
        before = verify(task, untouched, sandbox, first_failure=True)
    if before.infrastructure_error:
        problems.append(f"untouched workspace: {before.infrastructure_error}")
    elif before.accepted:
        problems.append("the verifier accepts the untouched workspace (a do-nothing agent would pass)")
    with Workspace.for_task(task, reuse=True) as solved:
        solved.apply(solution_files(task), task.solution_delete)
        if not solved.changes():
            problems.append("the reference solution changes nothing")
        after = verify(task, solved, sandbox)
        if not after.accepted:
            reason = after.infrastructure_error or "tests failed"
            problems.append(f"the verifier rejects the reference solution ({reason}):\n{after.output}")
        if not (after.accepted and set(task.tests) <= set(task.verifier_suite)):  # else the verdict ran them
            own = run_pytest(
                solved.root, list(task.tests), task.verifier_timeout, sandbox=sandbox, config=task.pytest_config
            )
            if not own.passed:
                problems.append(f"the project's own tests fail on the reference solution:\n{own.tail()}")
        problems += _underspecified(task, parent, solved.files())
    return problems


def _underspecified(task: Task, parent: Mapping[str, bytes], commit: Mapping[str, bytes]) -> list[str]:
    """A task from a commit (``provenance``) whose prompt never gives a public name its hidden tests need that the
    commit adds: no agent passes it but by guessing the name, and the reference agent, which replays the
    solution, would hide that."""
    if task.provenance is None or not task.verifier_select:
        return []
    changed = [path for path, data in commit.items() if path.endswith(".py") and parent.get(path) != data]
    used = interface(parent, commit, changed, read_tree(task.verifier_tests), task.verifier_select)
    missing = used.missing(task.prompt)
    return [f"underspecified: {unnamed(missing)}"] if missing else []
