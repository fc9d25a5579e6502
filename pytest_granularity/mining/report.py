"""The table a mining run ends with, and the one docs/mining.md publishes from ``mined.json``."""

from __future__ import annotations

from .miner import REASONS, Summary


def summary_table(summary: Summary) -> str:
    """Candidates, kept and every rejection reason counted, as a markdown table."""
    rows = [("candidates", summary.candidates), ("kept", summary.kept)]
    rows += [(f"rejected: {reason}", count) for reason, count in rejections(summary)]
    share = f"{summary.kept / summary.candidates:.0%}" if summary.candidates else "-"
    lines = ["| | count |", "|---|---|", *(f"| {name} | {count} |" for name, count in rows)]
    lines.append(
        f"\n{summary.commits} commits read, {summary.candidates} candidates, {share} kept, in {summary.seconds:.0f} s"
    )
    return "\n".join([*lines, *_install(summary)])


def summary_line(summary: Summary, revisions: str) -> str:
    """The same counts in a line, with what makes a candidate when there is none."""
    commits = f"{summary.commits} commit{'s' if summary.commits != 1 else ''}"
    line = f"mined {revisions}: {commits} read, {summary.candidates} candidates, {summary.kept} kept"
    if not summary.candidates:
        line += " (a candidate is a commit that changes code and its tests, or only moves files)"
    rejected = ", ".join(f"{reason} {count}" for reason, count in rejections(summary))
    return "\n".join([f"{line}; rejected: {rejected}" if rejected else line, *_install(summary)])


def _install(summary: Summary) -> list[str]:
    """What to install for the candidates rejected as missing a module (a module's distribution may be named
    otherwise: ``yaml`` is PyYAML's)."""
    if not summary.missing:
        return []
    return [f"missing modules {', '.join(summary.missing)}: pip install {' '.join(summary.missing)}, and mine again"]


def rejections(summary: Summary) -> list[tuple[str, int]]:
    """Each reason candidates were rejected for, in ``REASONS`` order, with its count."""
    return [(reason, summary.reasons[reason]) for reason in REASONS if summary.reasons.get(reason)]
