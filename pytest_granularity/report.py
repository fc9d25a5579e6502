"""Rendering results: the terminal table, a markdown table, and the JSON report files.

The JSON report is public: ``schema_version`` changes whenever a field changes meaning or goes
away, so programs that read it can refuse what they do not understand. Beside ``out.json``
(the summaries) the run records go to ``out.jsonl``, one run per line with its transcript and
state-machine transitions, so any run can be inspected afterwards.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from . import __version__
from .metrics import Summary, summarize
from .result import RunResult

SCHEMA_VERSION = 1
MARK_START = "<!-- granularity:table -->"
MARK_END = "<!-- /granularity:table -->"

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


def render_markdown(summaries: Sequence[Summary]) -> str:
    rows = table_rows(summaries)
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(path: Path, results: Sequence[RunResult]) -> tuple[Path, Path]:
    """Write ``path`` (summaries) and ``path`` with ``.jsonl`` (run records); returns both paths."""
    ordered = sorted(results, key=lambda r: r.key)
    summary = {
        "schema_version": SCHEMA_VERSION,
        "generator": f"pytest-granularity {__version__}",
        "runs": len(ordered),
        "summaries": [{**asdict(s), "success_rate": s.success_rate} for s in summarize(ordered)],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    records = path.with_suffix(".jsonl")
    records.write_text("".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in ordered))
    return path, records


def read_records(path: Path) -> list[RunResult]:
    """The run records of a saved report (``out.json`` or its ``out.jsonl``)."""
    summary = json.loads(path.with_suffix(".json").read_text())
    if summary.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path}: schema_version {summary.get('schema_version')!r} is not {SCHEMA_VERSION}")
    lines = path.with_suffix(".jsonl").read_text().splitlines()
    return [RunResult.from_dict(json.loads(line)) for line in lines if line.strip()]


def update_markdown(path: Path, summaries: Sequence[Summary]) -> None:
    """Replace the table between the ``granularity:table`` markers in a markdown file."""
    text = path.read_text()
    if MARK_START not in text or MARK_END not in text:
        raise ValueError(f"{path}: no '{MARK_START}' ... '{MARK_END}' block to replace")
    block = f"{MARK_START}\n{render_markdown(summaries)}\n{MARK_END}"
    path.write_text(re.sub(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), lambda _: block, text, flags=re.S))
