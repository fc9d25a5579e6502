"""A run's throw-away workspace: materialised from a fixture, observed, and compared.

Every run works in its own copy, so the fixture and the user's repository are never touched,
and the run can say exactly which paths it created, modified and deleted. Contents are
compared byte for byte (never timestamps, which ``copytree`` preserves).
"""

from __future__ import annotations

import atexit
import difflib
import functools
import hashlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING

from .errors import GranularityError
from .folder_sync import sync
from .run_folders import track_folder, untrack_folder
from .tasks import TASK_FILE, Task
from .vouched import forget, vouch

if TYPE_CHECKING:
    import git

IGNORED_DIRS = frozenset(
    {
        "__pycache__",
        ".pytest_cache",
        ".git",
        ".ropeproject",
        ".mypy_cache",
        ".ruff_cache",
        ".venv",
        ".tox",
        ".nox",
        "node_modules",
    }
)
"""Caches and environments, never part of a workspace: a served repository (``granularity serve-mcp``) often holds a
virtual environment, and every task and macro call snapshots the whole tree."""
IGNORED_SUFFIXES = (".pyc", ".pyo")

Snapshot = Mapping[str, bytes]


MAX_PATH_BYTES = 4096
"""Linux's ``PATH_MAX``: a longer path (10 MB of text, 3,000 folders) is refused before the file system sees it."""
MAX_NAME_BYTES = 255
"""Linux's ``NAME_MAX``: the longest file or folder name."""
MAX_DEPTH = 200
"""Folders a path may go down: Python 3.11's ``os.walk``, which reads every workspace, recurses once per level
(about 1,000 levels end in ``RecursionError``); a real project goes a few dozen deep at most."""
PROTECTED_SUFFIXES = (*IGNORED_SUFFIXES, ".pth")
"""Files no tool writes: compiled bytecode, which no diff shows, and ``.pth`` files, which ``site`` runs as code."""
VENV_MARKER = "pyvenv.cfg"


class PathEscape(GranularityError, ValueError):
    """A path a tool may not use: one that would leave the workspace (absolute, through ``..`` or through a
    symlink), one the file system cannot take (a NUL byte, too long), or one inside what is not part of the
    workspace (version control metadata, caches, environments), which no diff would show."""


class WorkspaceError(GranularityError, RuntimeError):
    """The workspace could not be built (missing fixture, bad git ref): an infrastructure error."""


@dataclass(frozen=True)
class Changes:
    """Paths (workspace-relative, POSIX) that differ from the initial state."""

    created: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted(self.created + self.modified + self.deleted))

    def __bool__(self) -> bool:
        return bool(self.created or self.modified or self.deleted)


def compare(before: Snapshot, after: Snapshot) -> Changes:
    return Changes(
        created=tuple(sorted(after.keys() - before.keys())),
        modified=tuple(sorted(p for p in before.keys() & after.keys() if before[p] != after[p])),
        deleted=tuple(sorted(before.keys() - after.keys())),
    )


def render_diff(path: str, before: bytes | None, after: bytes | None) -> str:
    """A unified diff of one file; the format the agent is shown and the reference agent expects."""
    old = _text_lines(before)
    new = _text_lines(after)
    return "".join(
        difflib.unified_diff(
            old,
            new,
            fromfile=f"a/{path}" if before is not None else "/dev/null",
            tofile=f"b/{path}" if after is not None else "/dev/null",
            lineterm="\n",
        )
    )


def _text_lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def iter_files(root: Path) -> Iterator[Path]:
    """Every file under ``root`` in a stable order, minus caches; symlinks are not followed."""
    for path, _ in _files(root):
        yield Path(path)


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` as relative POSIX path to content (a symlink as its target)."""
    tree = {}
    for path, rel in _files(root):
        if os.path.islink(path):
            tree[rel] = b"symlink:" + os.readlink(path).encode()
        else:
            with open(path, "rb") as file:
                tree[rel] = file.read()
    return tree


def _files(root: Path) -> Iterator[tuple[str, str]]:
    """``iter_files`` as plain strings, each path with its relative POSIX path: every run and tool call reads
    the whole tree (the memo keys, the changes), and ``pathlib`` objects cost more there than the reading."""
    top = os.fspath(root)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        folder = os.path.relpath(dirpath, top).replace(os.sep, "/")
        prefix = "" if folder == "." else folder + "/"
        for name in sorted(filenames):
            if not name.endswith(IGNORED_SUFFIXES):
                yield os.path.join(dirpath, name), prefix + name


def tree_digest(files: Mapping[str, bytes]) -> str:
    """A digest of a tree's paths and contents: equal for byte-identical trees, whatever their order."""
    digest = hashlib.blake2b(digest_size=20)
    for rel, data in sorted(files.items()):
        digest.update(rel.encode() + b"\0" + hashlib.blake2b(data, digest_size=20).digest())
    return digest.hexdigest()


def write_tree(root: Path, files: Mapping[str, bytes]) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


class Workspace:
    """A temporary copy of a task's fixture (plus its setup overlay) that one run may change."""

    def __init__(self, root: Path, reused: bool = False) -> None:
        self.root = root
        self.reused = reused
        """The folder outlives the run (``for_task(reuse=True)``): the next run's ``for_task`` syncs it."""
        self.initial: dict[str, bytes] = read_tree(root)

    @classmethod
    def for_task(cls, task: Task, parent: Path | None = None, reuse: bool = False) -> Workspace:
        """A fresh copy of the task's files; with ``reuse``, in the one folder this process keeps under
        ``parent`` for its runs, so what is bound to a folder (the sandboxed macro server) serves them all."""
        root = _kept_folder(parent) if reuse else Path(tempfile.mkdtemp(prefix=f"granularity-{task.id}-", dir=parent))
        root = root.resolve()
        track_folder(root)
        try:
            _materialise(task, root, reuse)
        except BaseException:
            _discard(root, keep=reuse)
            raise
        workspace = cls(root, reuse)
        vouch(root, workspace.initial)
        return workspace

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.remove()

    def remove(self) -> None:
        _discard(self.root, keep=self.reused)

    def resolve(self, rel: str) -> Path:
        """The absolute path of ``rel``, refusing anything that would leave the workspace or reach what is not
        part of it: every change a tool makes is then one that ``changes`` and ``diff`` show."""
        problem = _unusable(rel, len(str(self.root).encode()) + 1)
        if problem:
            raise PathEscape(f"path '{shown_path(rel)}' {problem}")
        pure = PurePosixPath(rel)
        if pure.is_absolute() or Path(rel).is_absolute():
            raise PathEscape(f"path '{rel}' must be relative to the workspace root")
        if ".." in pure.parts:
            raise PathEscape(f"path '{rel}' uses '..' and would leave the workspace")
        candidate = self.root.joinpath(*pure.parts)
        try:
            real = candidate.resolve()
        except OSError as exc:
            raise PathEscape(f"path '{rel}' cannot be resolved: {exc.strerror or exc}") from None
        if real != self.root and self.root not in real.parents:
            raise PathEscape(f"path '{rel}' leads outside the workspace through a symlink")
        for parts in (pure.parts, real.relative_to(self.root).parts):
            problem = self._protected(parts)
            if problem:
                raise PathEscape(f"path '{rel}' {problem}")
        return candidate

    def _protected(self, parts: tuple[str, ...]) -> str | None:
        """Why ``parts`` (relative to the root) lie in what is not part of the workspace, or None."""
        for depth, part in enumerate(parts):
            if part in IGNORED_DIRS:
                return f"is in {part}, which is not part of the workspace (version control, caches, environments)"
            if (self.root.joinpath(*parts[:depth]) / VENV_MARKER).is_file():
                folder = "/".join(parts[:depth]) or "."
                return f"is in the virtual environment {folder}, which is not part of the workspace"
        if parts and parts[-1].endswith(PROTECTED_SUFFIXES):
            return "is compiled bytecode or a .pth file (which Python runs at start-up); no tool writes one"
        return None

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def files_under(self, base: Path) -> list[Path]:
        """Regular files under ``base``, sorted; symlinks are skipped so nothing is read from outside."""
        return [p for p in iter_files(base) if not p.is_symlink()]

    def files(self) -> dict[str, bytes]:
        return read_tree(self.root)

    def changes(self) -> Changes:
        return compare(self.initial, self.files())

    def diff(self) -> str:
        return self.changes_and_diff()[1]

    def changes_and_diff(self) -> tuple[Changes, str]:
        """What changed and its unified diff, from one read of the workspace (a run's end needs both)."""
        current = self.files()
        changes = compare(self.initial, current)
        return changes, "".join(render_diff(p, self.initial.get(p), current.get(p)) for p in changes.paths)

    def apply(self, files: Mapping[str, bytes], delete: Iterable[str] = ()) -> None:
        """Lay ``files`` over the workspace and delete ``delete``: how a reference solution is applied."""
        for rel, data in files.items():
            target = self.resolve(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for rel in delete:
            target = self.resolve(rel)
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()


def _unusable(rel: str, prefix: int) -> str | None:
    """Why the file system cannot take ``rel`` at all below a root of ``prefix`` bytes, or None."""
    if not rel:
        return "must be relative to the workspace root"
    if "\0" in rel:
        return "holds a NUL byte"
    size = len(rel.encode("utf-8", errors="surrogateescape"))
    if prefix + size >= MAX_PATH_BYTES:
        return f"is {size} bytes long; in the workspace it would pass the {MAX_PATH_BYTES} bytes a path may have"
    parts = PurePosixPath(rel).parts
    if len(parts) > MAX_DEPTH:
        return f"goes {len(parts)} folders deep, more than the {MAX_DEPTH} a workspace path may"
    longest = max(parts, key=len, default="")
    if len(longest.encode("utf-8", errors="surrogateescape")) > MAX_NAME_BYTES:
        return f"has a name longer than the {MAX_NAME_BYTES} bytes a file or folder name may have"
    return None


def shown_path(rel: str, limit: int = 80) -> str:
    """``rel`` fit for one line of a message: NUL bytes and line breaks escaped, a long path cut."""
    text = rel[:limit].replace("\0", "\\0").replace("\n", "\\n").replace("\r", "\\r")
    return text + "..." if len(rel) > limit else text


def overlay(root: Path, source: Path) -> None:
    """Copy ``source`` over ``root``. Symlinks are copied as links, never followed, and must point
    inside ``source`` by a relative path, so nothing outside it is copied in or reachable."""
    check_links(source)
    shutil.copytree(source, root, dirs_exist_ok=True, ignore=_ignore_caches, symlinks=True)


def check_links(folder: Path) -> None:
    """Raise :class:`WorkspaceError` naming the first symlink under ``folder`` that leaves it or loops."""
    base = folder.resolve()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in IGNORED_DIRS]  # never copied (a .venv links to its python)
        for name in sorted(dirnames + filenames):
            link = Path(dirpath) / name
            problem = _link_problem(link, base) if link.is_symlink() else None
            if problem:
                raise WorkspaceError(f"{link}: {problem}")


def _link_problem(link: Path, base: Path) -> str | None:
    target = os.readlink(link)
    if os.path.isabs(target):
        return f"a symlink to the absolute path {target}; only relative links inside {base} are copied"
    try:
        resolved = link.resolve(strict=True)
    except FileNotFoundError:
        resolved = link.resolve()
    except (RuntimeError, OSError):
        return f"a symlink loop (it points to {target})"
    if resolved != base and base not in resolved.parents:
        return f"a symlink that points outside {base} (to {resolved})"
    return None


def solution_files(task: Task) -> dict[str, bytes]:
    """The reference solution's files; a symlink in it must stay inside it, as in every folder a task copies."""
    if not task.solution_overlay:
        return {}
    check_links(task.solution_overlay)
    return read_tree(task.solution_overlay)


def solved_files(task: Task, initial: Mapping[str, bytes]) -> dict[str, bytes]:
    """The files as the reference solution leaves ``initial``: its files laid over them, its deletions (a file, or a
    folder with everything under it) made."""
    solved = {**initial, **solution_files(task)}
    for gone in task.solution_delete:
        folder = gone.rstrip("/") + "/"
        for path in [p for p in solved if p == gone or p.startswith(folder)]:
            del solved[path]
    return solved


def _ignore_caches(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in IGNORED_DIRS or n.endswith(IGNORED_SUFFIXES)}


def _discard(root: Path, keep: bool) -> None:
    """Remove a workspace's folder; with ``keep``, leave what is in it for the next run's ``sync``."""
    if keep:
        _in_use.discard(root)
    else:
        shutil.rmtree(root, ignore_errors=True)
    forget(root)
    untrack_folder(root)


def empty_folder(root: Path) -> None:
    """Remove everything in ``root`` but ``root`` itself (a folder something else is bound to); a folder that
    is gone (an interrupt removed it) is fine."""
    if not root.is_dir():
        return
    for entry in list(root.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


_kept: dict[tuple[Path | None, int], Path] = {}
_in_use: set[Path] = set()


def _kept_folder(parent: Path | None) -> Path:
    """The folder this process gives each of its runs in turn (one at a time), removed when it exits;
    a forked process (``tasks check --jobs``) makes its own."""
    key = (parent, os.getpid())
    if key not in _kept or not _kept[key].is_dir():  # gone: removed with its parent, or on an interrupt
        home = Path(tempfile.mkdtemp(prefix="granularity-runs-", dir=parent))
        track_folder(home)  # an interrupt removes it with the rest
        (home / "workspace").mkdir()
        _kept[key] = (home / "workspace").resolve()  # as for_task and _discard name it
    if _kept[key] in _in_use:
        raise WorkspaceError(f"{_kept[key]}: the folder kept for this process's runs is still in use")
    _in_use.add(_kept[key])
    return _kept[key]


def remove_kept_folders() -> None:
    """Remove the folders this process kept for its runs (at its exit; a pool's worker calls it itself, since
    multiprocessing ends its workers without ``atexit``)."""
    for key in [key for key in _kept if key[1] == os.getpid()]:
        folder = _kept.pop(key)
        _in_use.discard(folder)
        home = folder.parent
        shutil.rmtree(home, ignore_errors=True)
        untrack_folder(home)


def remove_kept_folders_at_exit() -> None:
    """:func:`remove_kept_folders` as the process ends. Ctrl-C then asks for what is under way already, so it is
    ignored: under pytest-xdist it reached the workers as they ended, cut the removal short (the folder stayed in
    the temporary folder) and printed a ``KeyboardInterrupt`` traceback from each."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    remove_kept_folders()


atexit.register(remove_kept_folders_at_exit)


def _materialise(task: Task, root: Path, kept: bool) -> None:
    """The fixture and the setup overlay copied into ``root``; a kept folder, which holds what the last run
    left, is brought to the same state by changing only what differs (``folder_sync``)."""
    if not task.fixture.is_dir():
        raise WorkspaceError(f"{task.path}: fixture folder {task.fixture} is missing")
    sources = [task.fixture] if task.setup is None else [task.fixture, task.setup]
    if kept and task.fixture_ref is None:
        for source in sources:
            check_links(source)
        try:
            sync(root, sources, _ignore_caches)
            return
        except OSError:
            pass  # something the last run left could not be compared: copy afresh
    if kept:
        empty_folder(root)
    if task.fixture_ref is None:
        overlay(root, task.fixture)
    else:
        write_tree(root, _tree_at_ref(task.fixture, task.fixture_ref, task))
        write_tree(root, _generated(task))
    if task.setup is not None:
        overlay(root, task.setup)


def _generated(task: Task) -> dict[str, bytes]:
    """``fixture_generated``: files the project's build wrote into the checkout, read from its working tree."""
    files = {}
    for rel in task.fixture_generated:
        path = task.fixture / rel
        if path.is_symlink() or not path.is_file():
            raise WorkspaceError(
                f"{task.path}: fixture_generated: {path} is missing; the project's build writes it"
                " (install the project there, as its guide says: pip install -e .)"
            )
        files[rel] = path.read_bytes()
    return files


def _tree_at_ref(fixture: Path, ref: str, task: Task) -> Mapping[str, bytes]:
    """The fixture's files as committed at ``ref``, read through GitPython without a checkout."""
    import git

    where = f"{task.path}: fixture_ref '{ref}'"
    try:
        repo = git.Repo(fixture, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise WorkspaceError(
            f"{where}: {fixture} is not a git repository (fixture_ref names a commit in one)"
        ) from None
    try:
        commit = repo.commit(ref)
    except (git.BadName, ValueError) as exc:
        raise WorkspaceError(f"{where} cannot be read from {fixture}: {exc}") from None
    assert repo.working_tree_dir is not None  # a fixture folder is never a bare repository
    prefix = fixture.resolve().relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
    try:
        tree = commit.tree if prefix == "." else commit.tree / prefix
    except KeyError:
        tree = None
    if not isinstance(tree, git.Tree):
        raise WorkspaceError(f"{where}: {prefix} is not a folder in the commit {ref} of {repo.working_tree_dir}")
    files = _files_at(str(repo.git_dir), commit.hexsha, prefix)
    _check_no_task_at_ref(commit.tree, prefix, files, where)
    return files


@functools.lru_cache(maxsize=4)
def _files_at(git_dir: str, sha: str, prefix: str) -> Mapping[str, bytes]:
    """A commit's files never change: the dozen workspaces of one task's check (or of a mined task's runs)
    read them from git once."""
    import git

    tree = git.Repo(git_dir).commit(sha).tree
    tree = tree if prefix == "." else tree / prefix
    return MappingProxyType(
        {
            str(blob.path)[len(prefix) + 1 :] if prefix != "." else str(blob.path): blob.data_stream.read()
            for blob in tree.traverse()
            if isinstance(blob, git.Blob)
        }
    )


def _check_no_task_at_ref(root: git.Tree, prefix: str, files: Mapping[str, bytes], where: str) -> None:
    """What ``load_task`` checks of the fixture's working tree, checked of the commit the workspace comes from:
    it may neither hold a task (its solution and verifier) nor lie in one."""
    held = next((rel for rel in sorted(files) if PurePosixPath(rel).name == TASK_FILE), None)
    parts = PurePosixPath(prefix).parts if prefix != "." else ()
    inside = next(
        (folder for folder in ("/".join(parts[:n]) for n in range(len(parts))) if _has_blob(root, folder, TASK_FILE)),
        None,
    )
    if held is not None or inside is not None:
        relation = f"holds the task file {held}" if held is not None else f"is inside the task folder {inside or '.'}"
        raise WorkspaceError(f"{where}: the fixture at that commit {relation}: the agent would see that task's files")


def _has_blob(tree: git.Tree, folder: str, name: str) -> bool:
    import git

    try:
        found = tree / (f"{folder}/{name}" if folder else name)
    except KeyError:
        return False
    return isinstance(found, git.Blob)
