"""``granularity init``: a repository set up to gate its pull requests on its own benchmark, in one command.

It writes the gate workflow, the pytest settings in ``pyproject.toml`` (merged: what is there stays), a tasks
folder and the first baseline, then a plain ``pytest`` runs the repository's tests and the tasks, gated. Nothing
is written until everything to write is known and checked, and no file is replaced without ``force``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import git

from ..core.errors import GranularityError, InputError
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


@dataclass(frozen=True)
class Setup:
    """What ``init`` did: one line per thing written, and the command to run next."""

    written: list[str]
    next_command: str


def init_repository(path: Path, force: bool = False) -> Setup:
    """Set up the git repository that holds ``path``; ``force`` replaces files and settings that exist."""
    root = _work_tree(path)
    _check_pyproject_is_read(root)
    existing = [p for p in (WORKFLOW, Path(TASKS), Path(BASELINE)) if (root / p).exists()]
    if existing and not force:
        raise InputError(f"{', '.join(map(str, existing))} exist{'s' if len(existing) == 1 else ''}; --force replaces")
    pyproject = root / "pyproject.toml"
    old = pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""
    new = merged(old, SETTINGS, force)
    with tempfile.TemporaryDirectory(prefix="granularity-init-") as scratch:
        folder = Path(scratch) / TASKS
        written = [*tasks_for(root, folder), *_write_workflow(root, old)]
        _replace(folder, root / TASKS)
    pyproject.write_text(new, encoding="utf-8")
    written.append(f"pyproject.toml: {POLICIES} on {TASKS}, gated against {BASELINE} ([tool.pytest.ini_options])")
    written.append(_record_baseline(root))
    return Setup(written, "pytest")


def tasks_for(root: Path, folder: Path) -> list[str]:
    """The repository's tasks, written into ``folder``; one line per task said.

    The one place where ``granularity tasks mine`` will give the tasks mined from the repository's history, once
    it exists; until then, one example task built from the repository's code and tests."""
    sandbox = select("auto")
    try:
        task, candidate = example_task(root, folder, _fixture_name(root), MacroRegistry.load(), sandbox)
    finally:
        sandbox.servers.stop()
    return [
        f"{TASKS}/{task.parent.name}: an example task ({candidate.function} in {candidate.module} loses its result;"
        f" {candidate.test} is its verifier), its fixture the repository at HEAD in {TASKS}/fixtures"
    ]


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
    """The first baseline, recorded by the pytest run the settings now describe."""
    command = [sys.executable, "-m", "pytest", TASKS, "--granularity-update-baseline", "-p", "no:cacheprovider", "-q"]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if result.returncode != 0:
        raise GranularityError(
            f"recording the baseline failed (exit {result.returncode}; the files above are written):\n"
            + (result.stdout + result.stderr)[-3000:]
        )
    return f"{BASELINE}: the first baseline ({result.stdout.strip().splitlines()[-1].strip('= ')})"


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
