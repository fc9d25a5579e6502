"""The table a mining run ends with: every shape, its support, and whether it was kept or why not."""

from __future__ import annotations

from .miner import Mined

CELL = 90
"""The most characters of code or reason a cell shows; ``mined-macros.json`` has them whole."""


def mined_table(mined: Mined, min_support: int) -> str:
    """The shapes with enough support, one row each, and a count of the rest."""
    shown = [s for s in mined.shapes if len(s.tasks) + len(s.dropped) >= min_support]
    lines = [
        "| macro | tasks | before | after | kept |",
        "|---|---|---|---|---|",
        *(
            f"| {s.name} | {len(s.tasks)} | `{_cell(s.before)}` | `{_cell(s.after)}` | "
            f"{'yes' if s.kept else 'no: ' + _cell(s.reason)} |"
            for s in shown
        ),
    ]
    if len(shown) < len(mined.shapes):
        lines.append(f"\n{len(mined.shapes) - len(shown)} shapes of fewer than {min_support} tasks are not written")
    unused = ", ".join(f"{reason} {count}" for reason, count in mined.unused.items()) or "none"
    lines.append("")
    lines.append(
        f"{len(mined.kept)} macros kept of {len(mined.shapes)} shapes, from {mined.sources} sources "
        f"(not calls of one shape: {unused})"
    )
    return "\n".join(lines)


def _cell(text: str) -> str:
    flat = " ".join(text.split())
    return (flat if len(flat) <= CELL else flat[: CELL - 1] + "…").replace("|", "\\|")
