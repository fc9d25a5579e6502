"""The engine a mined macro folder's ``runtime.py`` binds: a rewrite's or an insertion's, as its shape says."""

from __future__ import annotations

from pathlib import Path

from .engine import ShapeMacro
from .insert_engine import InsertMacro
from .shape import INSERTED, SHAPE_FILE, Shape


def mined_macro(folder: Path) -> ShapeMacro:
    """The macro of the shape in ``folder``."""
    return InsertMacro(folder) if Shape.read(folder).kind == INSERTED else ShapeMacro(folder)


def mined_macros(output: Path) -> dict[str, ShapeMacro]:
    """Every mined macro folder under ``output`` (what ``granularity macros mine`` kept), by folder name."""
    return {f.name: mined_macro(f) for f in sorted(output.iterdir()) if (f / SHAPE_FILE).is_file()}
