"""The task file format (``task.yaml``): loading, validation and path resolution.

A task is public interface: users write their own, so every malformed file must end in one
error that names the file and the field, never a traceback. The JSON Schema in
``schemas/task.schema.json`` is the single statement of the format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, overload

import yaml

from .pytest_spec import PytestSpec
from .schemas import DefinitionError, check, packaged_schema, read_yaml_mapping

TASK_FILE = "task.yaml"
FAMILIES = ("simple", "multi_file", "refactor", "recovery")
DEFAULT_VERIFIER_TIMEOUT = 60.0
DEFAULT_MAX_STEPS = 40


class TaskError(DefinitionError):
    """A task file that cannot be used, with the file and field to blame."""


@dataclass(frozen=True)
class MacroCall:
    """The reference macro call: which skill, with which arguments."""

    skill: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Task:
    """A loaded, validated task with every path resolved to an absolute location."""

    id: str
    family: str
    prompt: str
    path: Path
    fixture: Path
    fixture_ref: str | None
    setup: Path | None
    solution_overlay: Path | None
    solution_delete: tuple[str, ...]
    verifier_tests: Path
    verifier_timeout: float
    tests: tuple[str, ...]
    macro: MacroCall | None
    faults: tuple[str, ...]
    max_steps: int
    fit: str | None = None
    verifier_allow_skips: bool = False
    verifier_suite: tuple[str, ...] = ()
    """The project's own tests that must still pass, run its own way after the hidden tests (``verify``)."""
    verifier_select: tuple[str, ...] = ()
    """Node ids in the verifier folder that are the hidden tests; empty: every test in it. A verifier that is a
    project's whole test tree (a task mined from history) names the tests that decide."""
    verifier_conftest: bool = False
    """Load the ``conftest.py`` files inside the verifier folder (and none outside it): the hidden tests'
    own fixtures, as the project wrote them."""
    verifier_pythonpath: tuple[str, ...] = ()
    """Workspace folders appended to ``sys.path`` for the hidden tests (``src`` in a src layout)."""
    provenance: dict[str, str] | None = None
    """Where a mined task came from (its commit, date and repository); the runtime never reads it."""
    pytest: PytestSpec | None = None
    """How the project runs its tests (``core.pytest_spec``): every pytest run of the task reads it instead of
    the workspace's config. None: the workspace's own config (the agent's runs), none (the verifier's)."""
    fixture_generated: tuple[str, ...] = ()
    """Files the project's build writes into its checkout that git ignores (a version file): taken from the
    fixture's working tree into every workspace, since the tree at ``fixture_ref`` lacks them."""

    @property
    def pytest_config(self) -> str | None:
        """The ini file every pytest run of the task reads, or None where the task has no ``pytest:`` spec."""
        return self.pytest.config() if self.pytest is not None else None

    @property
    def hidden_paths(self) -> tuple[Path, ...]:
        """What nothing that acts before or for the agent may read: the task file, verifier and solution."""
        return tuple(p for p in (self.path, self.verifier_tests, self.solution_overlay) if p is not None)


def load_task(path: Path) -> Task:
    """Load ``path`` (a ``task.yaml`` or the folder holding one) into a :class:`Task`."""
    path = Path(path)
    if path.is_dir():
        if path.name == TASK_FILE:
            raise TaskError(path, "<file>", "a folder, not a task file")
        path = path / TASK_FILE
    path = path.resolve()
    try:
        data = read_yaml_mapping(path)
    except DefinitionError as exc:
        raise TaskError(exc.path, exc.field, exc.message) from None
    return task_from_data(path, data)


def task_from_data(path: Path, data: dict[str, Any]) -> Task:
    """The task that ``data`` would be as the task file ``path`` (whose folder holds its own folders): what
    :func:`load_task` gives once the file is written, so a task being built is checked before it is written."""
    try:
        check(path, packaged_schema("task.schema.json"), data)
    except DefinitionError as exc:
        raise TaskError(exc.path, exc.field, exc.message) from None
    folder = path.parent
    if data["id"] != folder.name:
        raise TaskError(path, "id", f"'{data['id']}' must equal the folder name '{folder.name}'")
    solution = data["solution"]
    verifier = data["verifier"]
    macro = data.get("macro")
    if data.get("faults") and not macro:
        raise TaskError(
            path, "faults", "a fault is injected into the task's reference macro call, and it has none ('macro')"
        )
    task = Task(
        id=data["id"],
        family=data["family"],
        prompt=data["prompt"],
        path=path,
        fixture=_resolve_fixture(path, data["fixture"]),
        fixture_ref=data.get("fixture_ref"),
        setup=_task_folder(path, "setup", data.get("setup")),
        solution_overlay=_task_folder(path, "solution.overlay", solution.get("overlay")),
        solution_delete=tuple(_relative(path, "solution.delete", p) for p in solution.get("delete", [])),
        verifier_tests=_task_folder(path, "verifier.tests", verifier["tests"]),
        verifier_timeout=float(verifier.get("timeout_seconds", DEFAULT_VERIFIER_TIMEOUT)),
        verifier_allow_skips=bool(verifier.get("allow_skips", False)),
        verifier_suite=tuple(_test_path(path, "verifier.suite", p) for p in verifier.get("suite", [])),
        verifier_select=tuple(_test_path(path, "verifier.select", p) for p in verifier.get("select", [])),
        verifier_conftest=bool(verifier.get("conftest", False)),
        verifier_pythonpath=tuple(_relative(path, "verifier.pythonpath", p) for p in verifier.get("pythonpath", [])),
        provenance=data.get("provenance"),
        pytest=_pytest_spec(path, data.get("pytest")),
        fixture_generated=tuple(_relative(path, "fixture_generated", p) for p in data.get("fixture_generated", [])),
        tests=tuple(_relative(path, "tests", p) for p in data.get("tests", [])),
        macro=MacroCall(macro["skill"], dict(macro["args"])) if macro else None,
        faults=tuple(data.get("faults", [])),
        max_steps=int(data.get("max_steps", DEFAULT_MAX_STEPS)),
        fit=data.get("fit"),
    )
    if task.fixture_ref is None:
        # At a ref the fixture is the commit's tree, not this folder: the workspace reads that tree, and
        # ``workspace._tree_at_ref`` refuses one that holds a task, so tasks may live in the repository they
        # were mined from, in files committed after the ref (or never).
        _check_fixture_apart(task, data["fixture"])
        _check_apart_from_other_tasks(task, data["fixture"])
    return task


def _pytest_spec(path: Path, data: dict[str, Any] | None) -> PytestSpec | None:
    if data is None:
        return None
    for name, folders in data["import_roots"].items():
        for folder in [folders] if isinstance(folders, str) else folders:
            _relative(path, f"pytest.import_roots.{name}", folder)
    return PytestSpec.from_data(data)


def _check_fixture_apart(task: Task, value: str) -> None:
    """The fixture becomes the agent's workspace: it may neither hold nor lie in the task's hidden parts."""
    for hidden in (task.path, task.solution_overlay, task.verifier_tests):
        if hidden is None:
            continue
        relation = "holds" if task.fixture in hidden.parents else "is inside" if _within(task.fixture, hidden) else None
        if relation:
            raise TaskError(
                task.path,
                "fixture",
                f"'{value}' resolves to {task.fixture}, which {relation} {hidden}:"
                " the agent would see the task's solution and verifier",
            )


def _check_apart_from_other_tasks(task: Task, value: str) -> None:
    """Another task's folder is as hidden as this one's: the fixture may neither hold nor lie in one.

    Runs after :func:`_check_fixture_apart`, so a task file found under the fixture is another task's.
    """
    inside = next((p for p in task.fixture.parents if p != task.path.parent and (p / TASK_FILE).is_file()), None)
    held = None if inside else next(task.fixture.rglob(TASK_FILE), None)
    if inside or held:
        relation = f"is inside the task folder {inside}" if inside else f"holds the task file {held}"
        raise TaskError(
            task.path,
            "fixture",
            f"'{value}' resolves to {task.fixture}, which {relation}:"
            " the agent would see that task's solution and verifier",
        )


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class _Plain(yaml.SafeDumper):
    """YAML a person reads: a list written twice is written out twice, never as an anchor and an alias."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_task(path: Path, data: Mapping[str, Any]) -> None:
    """Write a task file as a person would: keys in the order given, lists written out."""
    path.write_text(
        yaml.dump(dict(data), Dumper=_Plain, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )


def find_task_files(paths: list[Path]) -> list[Path]:
    """Every ``task.yaml`` under ``paths``, sorted so that every process sees one order."""
    found: set[Path] = set()
    for root in paths:
        root = Path(root)
        if root.is_file() and root.name == TASK_FILE:
            found.add(root.resolve())
        elif root.is_dir():
            found.update(p.resolve() for p in root.rglob(TASK_FILE))
    return sorted(found)


def _relative(path: Path, field_name: str, value: str) -> str:
    """A workspace-relative POSIX path; absolute paths and ``..`` would escape the workspace."""
    pure = PurePosixPath(value)
    if pure.is_absolute() or ".." in pure.parts:
        raise TaskError(path, field_name, f"'{value}' must be a relative path inside the workspace")
    return pure.as_posix()


def _test_path(path: Path, field_name: str, value: str) -> str:
    """A test path for pytest: relative, inside the workspace, and not read as an option or an ``@file``."""
    if value.startswith(("-", "@")):
        raise TaskError(path, field_name, f"'{value}' is not a test path: pytest would read it as an option")
    return _relative(path, field_name, value)


@overload
def _task_folder(path: Path, field_name: str, value: str) -> Path: ...
@overload
def _task_folder(path: Path, field_name: str, value: None) -> None: ...
@overload
def _task_folder(path: Path, field_name: str, value: str | None) -> Path | None: ...
def _task_folder(path: Path, field_name: str, value: str | None) -> Path | None:
    """One of the task's own folders (setup, solution, verifier): it must lie inside the task's folder."""
    if value is None:
        return None
    folder = (path.parent / value).resolve()
    if folder == path.parent or path.parent not in folder.parents:
        raise TaskError(
            path,
            field_name,
            f"'{value}' resolves to {folder}, outside the task's folder: a task's own files live in a subfolder of it",
        )
    if not folder.is_dir():
        raise TaskError(path, field_name, f"folder '{value}' does not exist next to the task file")
    return folder


def _resolve_fixture(path: Path, value: str) -> Path:
    """A bare name is a folder under the nearest ``fixtures/``; anything else is relative to the task."""
    if "/" in value or value.startswith("."):
        candidate = (path.parent / value).resolve()
        if candidate.is_dir():
            return candidate
        raise TaskError(path, "fixture", f"folder '{value}' does not exist (resolved to {candidate})")
    for ancestor in path.parents:
        candidate = ancestor / "fixtures" / value
        if candidate.is_dir():
            return candidate
    raise TaskError(path, "fixture", f"no folder 'fixtures/{value}' in any parent of the task file")
