"""The table a mining run ends with, and the one docs/mining.md publishes from ``mined.json``."""

from __future__ import annotations

from .miner import REASONS, Summary


def summary_table(summary: Summary) -> str:
    """Candidates, kept and every rejection reason counted, as a markdown table."""
    rows = [("candidates", summary.candidates), ("kept", summary.kept)]
    rows += [(f"rejected: {reason}", summary.reasons[reason]) for reason in REASONS if summary.reasons.get(reason)]
    share = f"{summary.kept / summary.candidates:.0%}" if summary.candidates else "-"
    lines = ["| | count |", "|---|---|", *(f"| {name} | {count} |" for name, count in rows)]
    lines.append(
        f"\n{summary.commits} commits read, {summary.candidates} candidates, {share} kept, in {summary.seconds:.0f} s"
    )
    return "\n".join(lines)
