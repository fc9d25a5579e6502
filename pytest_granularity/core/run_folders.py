"""The throw-away folders this process made for its runs (workspaces, scratch folders), and who made each.

The domain says which folders a run owns; the interrupt handler (``process/interrupts``) removes this
process's on SIGINT or SIGTERM. Entries remember the process that made them, so a forked child never
removes what its parent registered.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_folders: dict[Path, int] = {}
"""Folder -> the pid of the process that registered it."""


def track_folder(path: Path) -> None:
    """Remove ``path`` (a run's own throw-away folder) on interrupt."""
    _folders[Path(path)] = os.getpid()


def untrack_folder(path: Path) -> None:
    _folders.pop(Path(path), None)


@contextmanager
def tracked_folder(path: Path) -> Iterator[Path]:
    track_folder(path)
    try:
        yield path
    finally:
        untrack_folder(path)


def folders_of(pid: int) -> list[Path]:
    """The folders process ``pid`` registered."""
    return [folder for folder, owner in list(_folders.items()) if owner == pid]
