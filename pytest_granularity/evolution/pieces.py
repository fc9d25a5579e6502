"""A piece of a larger change, proved on its commit with the rest of the change already made.

A commit that adds a table format and a function holds a piece a mined macro makes (the format, beside
its siblings) and a rest no call of that shape does. To prove the macro on that commit, its example starts
from the files after the commit with the piece undone: the calls alone then finish the change, and the
task's own verifier judges it, as for a commit that is all calls. The piece is undone by a three-way merge
(``git merge-file``): the change from the files the calls leave back to the files before, laid over the
files after.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.changed_lines import changed_lines
from ..macros.in_turn import made_in_turn
from .edits import Edit
from .engine import ShapeMacro


def with_the_rest_made(edit: Edit, calls: Sequence[dict[str, Any]], engine: ShapeMacro) -> Edit | None:
    """The partial edit with its source starting from the rest of its change made; None when a call does not
    apply to the files before, writes a line the change does not have, or its piece cannot be undone cleanly."""
    source = edit.source
    made, applied = made_in_turn(engine, source.before, calls)
    if len(applied) != len(calls) or changed_lines(source.before, made) - changed_lines(source.before, source.after):
        return None
    rest = dict(source.after)
    for path in (p for p in made if made[p] != source.before.get(p)):
        undone = _merged(source.after[path], made[path], source.before[path])
        if undone is None:
            return None
        rest[path] = undone
    return replace(edit, source=replace(source, before=rest))


def _merged(current: bytes, base: bytes, other: bytes) -> bytes | None:
    """``current`` with the change from ``base`` to ``other`` laid over it; None where they conflict."""
    with tempfile.TemporaryDirectory(prefix="granularity-merge-") as scratch:
        paths = [Path(scratch) / name for name in ("current", "base", "other")]
        for path, data in zip(paths, (current, base, other), strict=True):
            path.write_bytes(data)
        done = subprocess.run(["git", "merge-file", "-p", "-q", *map(str, paths)], capture_output=True)
        return done.stdout if done.returncode == 0 else None


def completed(
    edits: Sequence[Edit], calls: Sequence[Sequence[dict[str, Any]]], engine: ShapeMacro
) -> list[Edit | None]:
    """Each edit as the miner proves it: whole edits as they are, partial ones with the rest of their change made."""
    return [with_the_rest_made(e, c, engine) if e.partial else e for e, c in zip(edits, calls, strict=True)]
