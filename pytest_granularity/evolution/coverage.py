"""Macro coverage: the share of a change's changed lines that macro calls produced.

A macro is worth having when it does part of a change that an agent then finishes. The reference agent
knows the whole change, so it calls a macro wherever one reproduces a piece of it (each mined engine's
``pieces``) and finishes the rest with micro tools (``agents/reference.py``, in the plugin's runs); the
lines those calls wrote that the change has (removed or added, per file, as a diff with no context counts
them) over all the lines the change has are its coverage. A run's record measures its own macro calls the
same way (``RunResult.macro_coverage``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.changed_lines import changed_lines, produced
from ..macros import Macro
from ..macros.in_turn import made_in_turn
from .sources import Source


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


def reference_coverage(source: Source, engines: Mapping[str, Macro]) -> Coverage:
    """The reference agent's macro calls on this source's change: every piece an engine reproduces, made in
    turn on its files (a call another one's changes no longer fit is skipped, as the agent would)."""
    reference = changed_lines(source.before, source.after)
    files, calls = dict(source.before), []
    for name, engine in sorted(engines.items()):
        if engine.pieces is None:
            continue
        files, made = made_in_turn(engine, files, engine.pieces(source.before, source.after))
        calls += [{"macro": name, **call} for call in made]
    return Coverage(
        source.task.id, sum(reference.values()), produced(reference, changed_lines(source.before, files)), calls
    )
