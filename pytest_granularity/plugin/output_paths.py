"""Checking, before a run starts, that the files and folders it will write can be written.

A report or plot path that is a folder, or lies under a file or an unwritable folder, would only
fail after the whole benchmark ran, losing it. Nothing is created here: the nearest existing
folder is probed with a temporary file that is removed at once.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..core.input_files import special_kind


def output_problem(path: Path, companions: Iterable[Path] = ()) -> str | None:
    """Why ``path`` (and files written beside it) cannot be written, or None."""
    for target in (path, *companions):
        if target.is_dir():
            return f"{target} is a folder; give the path of a file to write"
        kind = _special(target)
        if kind:
            return f"{target} is {kind}, not a regular file; give the path of a file to write"
    return _unwritable(path.parent, path)


def folder_problem(path: Path) -> str | None:
    """Why a command cannot make ``path`` a folder and write in it, or None: refused before any work, in words
    (creating it over a file or a device says only ``[Errno 17] File exists``)."""
    if path.exists() and not path.is_dir():
        return f"{path} is {_special(path) or 'a file'}, not a folder"
    return _unwritable(path, path)


def _unwritable(folder: Path, path: Path) -> str | None:
    """Why ``path`` cannot be created in ``folder`` (or its nearest existing ancestor), or None."""
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot create {path}: {folder} is a file, not a folder"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot write in {folder}: {exc.strerror or exc}"
    return None


def _special(path: Path) -> str | None:
    """A device, FIFO or socket: a report written to ``/dev/null`` went to ``/dev/null.jsonl`` beside it, one to
    ``/dev/full`` failed at the end, one to a FIFO blocked until something read it."""
    try:
        return special_kind(path.stat().st_mode)
    except OSError:
        return None  # missing (it will be created) or unreadable (the write probe below says why)
