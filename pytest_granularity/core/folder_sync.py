"""Make a folder hold exactly what copying some source folders into it, empty, would give; touching only what differs.

The runs of a process share one kept folder (``Workspace.for_task``), and most runs there are of the
same fixture: an agent changes a few files, and emptying the folder and copying the fixture in again
cost more than the run's own tools (creating a file is the dear part). ``sync`` compares instead and
redoes only what differs. Its result is the copy's, entry for entry: the same paths and kinds, the
same bytes, links and modes, the same modification times (``copy2`` keeps the source's), files owned
by this process and linked nowhere else; and nothing else, caches and bytecode included. What a run
left in the folder never reaches the next one: a file is never written through, a differing one is
unlinked and copied anew, so a hard link or a symlink a run planted cannot carry a write elsewhere.
Extended attributes are not compared (nothing the harness runs reads them).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

Ignore = Callable[[str, list[str]], set[str]]
"""``shutil.copytree``'s ``ignore``: the names in a source folder that are not copied."""


Entries = dict[str, tuple[Path, os.stat_result]]
"""Every path a copy would hold, parents first: the source entry it would be copied from, and its ``lstat``."""


def sync(root: Path, sources: Sequence[Path], ignore: Ignore) -> None:
    """Make ``root`` what copying each of ``sources`` in turn (later ones win, links copied as links)
    into an empty ``root`` would make it. Raises ``OSError`` when it cannot (a folder a run made
    unreadable); the caller empties the folder and copies then."""
    wanted = _entries(sources, ignore)
    _remove_unwanted(root, "", wanted)
    for rel, (source, st) in wanted.items():
        _lay(root / rel, source, st)
    for rel, (source, st) in reversed(wanted.items()):  # as copytree ends each folder: its mode and times
        if stat.S_ISDIR(st.st_mode):
            shutil.copystat(source, root / rel, follow_symlinks=False)
    for source in sources:
        shutil.copystat(source, root)


def _entries(sources: Sequence[Path], ignore: Ignore) -> Entries:
    wanted: Entries = {}
    for source in sources:
        for dirpath, dirnames, filenames in os.walk(source):
            ignored = ignore(dirpath, dirnames + filenames)
            dirnames[:] = sorted(d for d in dirnames if d not in ignored)
            base = Path(dirpath)
            rel_base = base.relative_to(source)
            for name in [*dirnames, *sorted(f for f in filenames if f not in ignored)]:
                wanted[(rel_base / name).as_posix()] = (base / name, os.lstat(base / name))
    return wanted


def fingerprint(root: Path) -> str | None:
    """A digest of everything under ``root`` that ``sync`` lays: every path, its kind and mode, a file's bytes,
    a link's target (modification times aside). Folders with equal fingerprints hold the same; after
    ``sync(root, [copy], keep_all)`` of a copy of a folder, ``root`` has that folder's fingerprint.

    None when ``sync`` could not be relied on to lay or clear ``root`` (see ``laid_bytes``)."""
    entries = _layable_entries(root)
    if entries is None:
        return None
    digest = hashlib.blake2b(digest_size=20)
    try:
        for rel, (path, st) in entries.items():
            kind = _kind(st.st_mode)
            data = os.readlink(path).encode() if kind == "link" else path.read_bytes() if kind == "file" else b""
            digest.update(f"{rel}\0{st.st_mode:o}\0{len(data)}\0".encode() + data)
    except OSError:
        return None
    return digest.hexdigest()


def laid_bytes(root: Path) -> int | None:
    """The bytes of the files and links ``sync`` would lay from ``root``, read from their metadata alone.

    None when ``sync`` could not be relied on to lay or clear ``root``: it holds what is neither a file, a
    folder nor a link (a FIFO, which copying would block on), or, for a process that is not root's, what
    is not its own, a file it cannot read or a folder it cannot change."""
    entries = _layable_entries(root)
    return None if entries is None else sum(st.st_size for _, st in entries.values() if not stat.S_ISDIR(st.st_mode))


def keep_all(directory: str, names: list[str]) -> set[str]:
    """An ``Ignore`` that ignores nothing: caches and bytecode are laid too."""
    return set()


def _layable_entries(root: Path) -> Entries | None:
    try:
        entries = _entries([root], keep_all)
    except OSError:
        return None
    return entries if all(_ours(st, _kind(st.st_mode)) for _, st in entries.values()) else None


def _ours(st: os.stat_result, kind: str) -> bool:
    """Whether ``sync`` can rely on laying or clearing this entry (of ``kind``)."""
    if kind == "other":
        return False
    if os.geteuid() == 0 or kind == "link":
        return True
    needed = stat.S_IRWXU if kind == "dir" else stat.S_IRUSR
    return st.st_uid == os.geteuid() and st.st_mode & needed == needed


def _kind(mode: int) -> str:
    return "link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _remove_unwanted(folder: Path, prefix: str, wanted: Entries) -> None:
    """Remove what the copy would not hold, or holds as another kind; descend into the folders it keeps."""
    with os.scandir(folder) as entries:
        for entry in list(entries):
            rel = prefix + entry.name
            kind = _kind(entry.stat(follow_symlinks=False).st_mode)
            if rel not in wanted or kind != _kind(wanted[rel][1].st_mode):
                _remove(Path(entry.path), kind)
            elif kind == "dir":
                _remove_unwanted(Path(entry.path), rel + "/", wanted)


def _remove(path: Path, kind: str) -> None:
    if kind == "dir":
        shutil.rmtree(path)
    else:
        path.unlink()


def _lay(target: Path, source: Path, wanted: os.stat_result) -> None:
    """Make ``target`` a copy of ``source``, keeping what already is one (``_remove_unwanted`` ran first:
    a target that exists is of the source's kind)."""
    try:
        held = os.lstat(target)
    except FileNotFoundError:
        held = None
    kind = _kind(wanted.st_mode)
    if kind == "dir":
        if held is None:
            target.mkdir()
    elif kind == "link":
        if held is not None and os.readlink(target) == os.readlink(source):
            return
        if held is not None:
            target.unlink()
        target.symlink_to(os.readlink(source))
    elif held is None or not _same_file(target, held, source, wanted):
        if held is not None:
            target.unlink()
        shutil.copy2(source, target, follow_symlinks=False)
    elif held.st_mtime_ns != wanted.st_mtime_ns:
        os.utime(target, ns=(wanted.st_atime_ns, wanted.st_mtime_ns), follow_symlinks=False)


def _same_file(target: Path, held: os.stat_result, source: Path, wanted: os.stat_result) -> bool:
    """Whether ``target`` is this process's own, unshared file with ``source``'s mode and bytes."""
    return (
        held.st_nlink == 1
        and held.st_uid == os.geteuid()
        and held.st_mode == wanted.st_mode
        and held.st_size == wanted.st_size
        and target.read_bytes() == source.read_bytes()
    )
