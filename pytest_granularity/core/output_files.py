"""Writing an output file so that a failure names it: a full disk fails a write, not the open, and Python's
``OSError`` from a write carries no file name ("[Errno 28] No space left on device", but which file?)."""

from __future__ import annotations

from pathlib import Path


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``; an ``OSError`` always has ``filename`` set to ``path``."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def failure(exc: OSError) -> str:
    """``could not write FILE: WHY``, for a failed output."""
    return f"could not write {exc.filename}: {exc.strerror or exc}"
