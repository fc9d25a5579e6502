"""``granularity init``: a repository set up to gate its pull requests on its own benchmark, in one command.

It writes the gate workflow, the pytest settings in ``pyproject.toml`` (merged: what is there stays), a tasks
folder and the first baseline, then a plain ``pytest`` runs the repository's tests and the tasks, gated. Nothing
is written until everything to write is known and checked, and no file is replaced without ``force``.

The tasks are mined from the repository's history by the :data:`Miner` the caller hands in (mining sits above
this group; the ``init`` command passes it), or, when it keeps none, one example task built from HEAD.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import git

from ..core.errors import GranularityError, InputError
from ..core.tasks import Task, find_task_files, load_task
from ..macros import MacroRegistry
from ..process.sandbox import select
from .example_task import example_task
from .pyproject_keys import Addition, merged
from .workflow import gate_workflow

TASKS = "granularity_tasks"
WORKFLOW = Path(".github/workflows/granularity.yml")
BASELINE = ".granularity/baseline.json"
POLICIES = "micro,macro,hybrid"
SETTINGS = Addition(keys={"granularity_baseline": BASELINE}, option=f"--granularity={POLICIES}", testpath=TASKS)
OTHER_CONFIGS = {"pytest.ini": None, ".pytest.ini": None, "tox.ini": "[pytest]", "setup.cfg": "[tool:pytest]"}
"""Files pytest reads its settings from before pyproject.toml (with the section that makes it so)."""
STAGING = ".granularity-init-"
"""The tasks are built in a folder of this prefix (and the process id) beside the tasks folder: a mined task names
its fixture, the repository, by a path relative to its own folder, which stays true when the content is moved
across to the tasks folder."""
OK, TESTS_FAILED = 0, 1
"""pytest's exit statuses when every test ran: all passed, some failed."""
Miner = Callable[[Path, Path], list[str]]
"""Mines the history of the repository at its first argument into the folder at its second, one task folder per
kept commit; returns what came of it, a line each."""


@dataclass(frozen=True)
class Setup:
    """What ``init`` did: one line per thing written, and the command to run next."""

    written: list[str]
    next_command: str
    notes: list[str] = field(default_factory=list)
    """What else there is to say: how mining went, and why the example task was written instead."""


def init_repository(path: Path, force: bool = False, miner: Miner | None = None) -> Setup:
    """Set up the git repository that holds ``path``; ``force`` replaces files and settings that exist. The tasks
    are those ``miner`` keeps from the history, else one example task."""
    root = _work_tree(path)
    _check_pyproject_is_read(root)
    existing = [p for p in (WORKFLOW, Path(TASKS), Path(BASELINE)) if (root / p).exists()]
    if existing and not force:
        raise InputError(f"{', '.join(map(str, existing))} exist{'s' if len(existing) == 1 else ''}; --force replaces")
    pyproject = root / "pyproject.toml"
    old = pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""
    new = merged(old, SETTINGS, force)
    folder = root / f"{STAGING}{os.getpid()}"
    folder.mkdir()
    try:
        notes, written = tasks_for(root, folder, miner)
        written += _write_workflow(root, old)
        _replace(folder, root / TASKS)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    pyproject.write_text(new, encoding="utf-8")
    written.append(f"pyproject.toml: {POLICIES} on {TASKS}, gated against {BASELINE} ([tool.pytest.ini_options])")
    written.append(_record_baseline(root))
    return Setup(written, "pytest", notes)


def tasks_for(root: Path, folder: Path, miner: Miner | None = None) -> tuple[list[str], list[str]]:
    """The repository's tasks, written into ``folder``: those ``miner`` keeps, else one example task built from
    the repository's code and tests. Returns what is said of them and a line per task written."""
    notes = miner(root, folder) if miner is not None else []
    mined = [load_task(path) for path in find_task_files([folder])]
    if mined:
        return notes, [_mined_line(task) for task in mined]
    if miner is not None:
        notes.append("no task was mined from the history: one example task instead")
    return notes, [_example(root, folder)]


def _mined_line(task: Task) -> str:
    commit = (task.provenance or {}).get("commit", "")[:7]
    return (
        f"{TASKS}/{task.id}: mined from commit {commit} ({task.family}), its fixture the repository at"
        f" {(task.fixture_ref or '')[:7]}"
    )


def _example(root: Path, folder: Path) -> str:
    sandbox = select("auto")
    try:
        task, candidate = example_task(root, folder, _fixture_name(root), MacroRegistry.load(), sandbox)
    finally:
        sandbox.servers.stop()
    return (
        f"{TASKS}/{task.parent.name}: an example task ({candidate.function} in {candidate.module} loses its result;"
        f" {candidate.test} is its verifier), its fixture the repository at HEAD in {TASKS}/fixtures"
    )


def workflow_for(branch: str, also_install: str) -> str:
    """The gate workflow ``init`` writes: ``pytest`` as the settings say, against the baseline on ``branch``."""
    return gate_workflow(
        [f"--granularity-baseline=git:{branch}:{BASELINE} --granularity-sandbox=bwrap"], branch, also_install
    )


def _write_workflow(root: Path, pyproject: str) -> list[str]:
    repository = git.Repo(root)
    branch = "origin/main" if repository.head.is_detached else f"origin/{repository.active_branch.name}"
    installable = (root / "setup.py").exists() or "\n[project]" in f"\n{pyproject}"
    (root / WORKFLOW).parent.mkdir(parents=True, exist_ok=True)
    (root / WORKFLOW).write_text(workflow_for(branch, "-e ." if installable else ""), encoding="utf-8")
    return [f"{WORKFLOW}: gates every pull request against the baseline on {branch}"]


def _replace(folder: Path, target: Path) -> None:
    """Copy the tasks folder in: each task and fixture it holds replaces its namesake whole (a fixture keeps no
    file the repository no longer has); the other tasks of ``target`` stay."""
    for entry in [*(p for p in folder.iterdir() if p.name != "fixtures"), *folder.glob("fixtures/*")]:
        shutil.rmtree(target / entry.relative_to(folder), ignore_errors=True)
    shutil.copytree(folder, target, dirs_exist_ok=True)


def _record_baseline(root: Path) -> str:
    """The first baseline, recorded by the pytest run the settings now describe. A run that fails is recorded as
    failed (the macro policy on a task no macro fits does): a gated run expects it to fail until it passes."""
    (root / BASELINE).unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", TASKS, "--granularity-update-baseline", "-p", "no:cacheprovider", "-q"]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True)
    recorded = result.returncode in (OK, TESTS_FAILED) and (root / BASELINE).exists()
    if not recorded:
        raise GranularityError(
            f"recording the baseline failed (exit {result.returncode}; the files above are written):\n"
            + (result.stdout + result.stderr)[-3000:]
        )
    said = result.stdout.strip().splitlines()[-1].strip("= ")
    if result.returncode == TESTS_FAILED:
        said += "; a gated pytest expects the failed runs to fail (xfail) until they pass"
    return f"{BASELINE}: the first baseline ({said})"


def _work_tree(path: Path) -> Path:
    try:
        tree = git.Repo(path, search_parent_directories=True).working_tree_dir
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"{path}: not in a git repository") from None
    if tree is None:
        raise InputError(f"{path}: a bare git repository has no files to set up")
    return Path(tree).resolve()


def _check_pyproject_is_read(root: Path) -> None:
    """Settings in pyproject.toml count only when pytest reads no other file first."""
    for name, section in OTHER_CONFIGS.items():
        config = root / name
        if config.is_file() and (section is None or section in config.read_text(encoding="utf-8", errors="replace")):
            raise InputError(f"{name}: pytest reads its settings from it, not pyproject.toml; move them there first")


def _fixture_name(root: Path) -> str:
    name = "".join(c if c.isalnum() or c in "_-" else "-" for c in root.name.lower()).strip("-.")
    return name or "repository"
