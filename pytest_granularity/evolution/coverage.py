"""Macro coverage: the share of a change's changed lines that macro calls produced.

A macro is worth having when it does part of a change that an agent then finishes. The reference agent
knows the whole change, so it calls a macro wherever one reproduces a piece of it (each mined engine's
``pieces``) and would finish the rest with micro tools; the lines those calls wrote that the change has
(removed or added, per file, as a diff with no context counts them) over all the lines the change has
are its coverage. A run's own diff is measured the same way against the task's reference change.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .engine import ShapeMacro
from .macro import made_by
from .sources import Source, applied

Lines = Counter[tuple[str, str, str]]
"""Changed lines as (file, ``+`` or ``-``, the line): a multiset, since a change may add a line twice."""


@dataclass(frozen=True)
class Coverage:
    """What macro calls made of one change."""

    task: str
    lines: int
    """The change's changed lines."""
    produced: int
    """Those that macro calls wrote."""
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def share(self) -> float:
        return round(self.produced / self.lines, 3) if self.lines else 0.0


def changed_lines(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> Lines:
    """Every line removed from or added to a text file between ``before`` and ``after``."""
    found: Lines = Counter()
    for path in sorted(before.keys() | after.keys()):
        old, new = _lines(before.get(path, b"")), _lines(after.get(path, b""))
        if old == new or old is None or new is None:
            continue
        for line in difflib.unified_diff(old, new, n=0, lineterm=""):
            if line[:1] in "+-" and not line.startswith(("+++", "---")):
                found[(path, line[0], line[1:])] += 1
    return found


def produced(reference: Lines, made: Lines) -> int:
    """The reference's changed lines that ``made`` has too."""
    return sum((reference & made).values())


def reference_coverage(source: Source, engines: Mapping[str, ShapeMacro]) -> Coverage:
    """The reference agent's macro calls on this source's change: every piece an engine reproduces, made in
    turn on its files (a call another one's changes no longer fit is skipped, as the agent would)."""
    reference = changed_lines(source.before, source.after)
    files, calls = dict(source.before), []
    for name, engine in sorted(engines.items()):
        files, made = made_by(engine, files, engine.pieces(source.before, source.after))
        calls += [{"macro": name, **call} for call in made]
    return Coverage(
        source.task.id, sum(reference.values()), produced(reference, changed_lines(source.before, files)), calls
    )


def run_coverage(source: Source, diff: str) -> Coverage:
    """How much of this source's change a run's diff (from its macro calls) reproduces."""
    reference = changed_lines(source.before, source.after)
    made = changed_lines(source.before, applied(source.before, diff)) if diff.strip() else Counter()
    return Coverage(source.task.id, sum(reference.values()), produced(reference, made))


def _lines(data: bytes) -> list[str] | None:
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
