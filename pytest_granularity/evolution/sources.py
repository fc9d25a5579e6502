"""Where edits to learn from come from: task folders' reference solutions, and successful runs' diffs.

A task folder's edit is its initial files (fixture, setup) against them with the reference solution
applied; a run record's is the same initial files against them with the run's diff applied (``git
apply``, outside any repository). Only a run the verifier accepted teaches anything: a failed run's
edit is not a skill. Each source keeps its task, for the macro's examples and their verifier.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from ..core.result import Outcome, RunResult
from ..core.tasks import Task, find_task_files, load_task
from ..core.workspace import Workspace, read_tree, solved_files, write_tree
from ..routing.training import read_runs


@dataclass(frozen=True)
class Source:
    """One task's edit: the files before and after it, and where it was read."""

    task: Task
    before: dict[str, bytes]
    after: dict[str, bytes]
    origin: str


def is_report(path: Path) -> bool:
    return path.is_file() and path.suffix in (".json", ".jsonl")


def read_sources(paths: Iterable[Path], tasks_root: Path | None) -> list[Source]:
    """Every source under ``paths`` (task folders, or reports whose tasks are under ``tasks_root``), one per
    task (the first read), in task order."""
    found: dict[str, Source] = {}
    for path in paths:
        sources = report_sources(path, tasks_root) if is_report(path) else task_sources(path)
        for source in sources:
            found.setdefault(source.task.id, source)
    return [found[t] for t in sorted(found)]


def task_sources(folder: Path) -> list[Source]:
    if not folder.exists():
        raise InputError(f"{folder}: no such file or folder")
    return [task_source(load_task(file)) for file in find_task_files([folder])]


def task_source(task: Task) -> Source:
    """The task's reference solution as an edit of its initial files."""
    before = initial_files(task)
    return Source(task, before, solved_files(task, before), f"reference solution of {task.id}")


def report_sources(report: Path, tasks_root: Path | None) -> list[Source]:
    if tasks_root is None:
        raise InputError(f"{report}: a run report's tasks are read from --tasks DIR, which is not given")
    tasks = [load_task(f) for f in find_task_files([tasks_root])]
    return run_sources(read_runs(report), {task.id: task for task in tasks})


def run_sources(records: Iterable[RunResult], tasks: Mapping[str, Task]) -> list[Source]:
    """The edits of the runs the verifier accepted, of tasks in ``tasks``: the first such run of each task."""
    sources: dict[str, Source] = {}
    for record in records:
        if record.outcome != Outcome.PASSED or not record.diff.strip() or record.task not in tasks:
            continue
        if record.task not in sources:
            task = tasks[record.task]
            before = initial_files(task)
            origin = f"{record.policy} run of {task.id}"
            sources[task.id] = Source(task, before, applied(before, record.diff), origin)
    return list(sources.values())


def initial_files(task: Task) -> dict[str, bytes]:
    with Workspace.for_task(task) as workspace:
        return workspace.files()


def applied(files: dict[str, bytes], diff: str) -> dict[str, bytes]:
    """``files`` with a unified diff applied, as ``git apply`` applies it (in a scratch folder)."""
    with tempfile.TemporaryDirectory(prefix="granularity-apply-") as scratch:
        root = Path(scratch)
        write_tree(root, files)
        done = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", "-"], input=diff, text=True, cwd=root, capture_output=True
        )
        if done.returncode:
            raise InputError(f"a run's diff does not apply to its task's files: {done.stderr.strip()}")
        return read_tree(root)
