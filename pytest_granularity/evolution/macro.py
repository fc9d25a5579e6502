"""The engine a mined macro folder's ``runtime.py`` binds: a rewrite's or an insertion's, as its shape says."""

from __future__ import annotations

from pathlib import Path

from ..macros.contract import CONTRACT_FILE, Macro, load_macro
from .engine import ShapeMacro
from .insert_engine import InsertMacro
from .shape import INSERTED, Shape


def mined_macro(folder: Path) -> ShapeMacro:
    """The macro of the shape in ``folder``."""
    return InsertMacro(folder) if Shape.read(folder).kind == INSERTED else ShapeMacro(folder)


def mined_macros(output: Path) -> dict[str, Macro]:
    """Every macro ``granularity macros mine`` kept under ``output`` (shapes and the module move), by folder name."""
    return {f.name: load_macro(f) for f in sorted(output.iterdir()) if (f / CONTRACT_FILE).is_file()}
