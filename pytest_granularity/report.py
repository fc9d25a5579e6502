"""The end-of-session table: one row per policy and fault."""

from __future__ import annotations

from typing import Sequence

from .metrics import Summary

HEADERS = ("policy", "fault", "runs", "success", "steps", "tokens", "adoption", "transition", "G", "errors", "failure classes")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table_rows(summaries: Sequence[Summary]) -> list[tuple[str, ...]]:
    return [
        (
            s.policy,
            s.fault,
            str(s.runs),
            _fmt(s.success_rate),
            _fmt(s.mean_steps, 2),
            _fmt(s.mean_tokens, 1),
            _fmt(s.macro_adoption),
            _fmt(s.transition_rate),
            _fmt(s.g_score, 4),
            str(s.errors),
            ", ".join(f"{k}={v}" for k, v in s.failure_classes.items()) or "-",
        )
        for s in summaries
    ]


def render_table(summaries: Sequence[Summary]) -> str:
    rows = [HEADERS, *table_rows(summaries)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
