"""The engine a mined macro folder's ``runtime.py`` binds: a rewrite's or an insertion's, as its shape says."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.workspace import Workspace, read_tree, write_tree
from ..macros.context import MacroContext, MacroError
from .engine import ShapeMacro
from .insert_engine import InsertMacro
from .shape import INSERTED, SHAPE_FILE, Shape


def mined_macro(folder: Path) -> ShapeMacro:
    """The macro of the shape in ``folder``."""
    return InsertMacro(folder) if Shape.read(folder).kind == INSERTED else ShapeMacro(folder)


def mined_macros(output: Path) -> dict[str, ShapeMacro]:
    """Every mined macro folder under ``output`` (what ``granularity macros mine`` kept), by folder name."""
    return {f.name: mined_macro(f) for f in sorted(output.iterdir()) if (f / SHAPE_FILE).is_file()}


def made_by(
    engine: ShapeMacro, files: Mapping[str, bytes], calls: Sequence[dict[str, Any]]
) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """``files`` after the calls, made in turn in a scratch folder, and the calls made: one that does not fit
    (its preconditions refuse it, or its run does) is left out."""
    made = []
    with tempfile.TemporaryDirectory(prefix="granularity-calls-") as scratch:
        root = Path(scratch)
        write_tree(root, files)
        for call in calls:
            ctx = MacroContext(Workspace(root), dict(call))
            if engine.preconditions(ctx):
                continue
            try:
                engine.run(ctx)
            except MacroError:
                continue
            made.append(call)
        return read_tree(root), made
