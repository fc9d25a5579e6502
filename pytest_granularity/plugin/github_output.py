"""What a session tells GitHub Actions: the job's step summary and the gate's annotations.

GitHub reads both from places it sets in the environment: ``GITHUB_STEP_SUMMARY`` names a file
that every step appends markdown to, and ``GITHUB_ACTIONS=true`` means workflow commands on
standard output become annotations on the pull request. Outside Actions nothing here writes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..core.result import RunResult
from ..gate.baseline import GateReport
from ..report.render import render_report


def in_actions() -> bool:
    """Whether workflow commands printed now become annotations."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def has_step_summary() -> bool:
    """Whether this job has a step summary to write to (rendering one costs a second report)."""
    return bool(os.environ.get("GITHUB_STEP_SUMMARY"))


def write_step_summary(markdown: str) -> None:
    """Append ``markdown`` to the job's step summary, when there is one (the one writer of that file)."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(markdown)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror or str(exc), path) from None


def results_markdown(results: Sequence[RunResult]) -> str:
    """The benchmark table as the step summary shows it."""
    return "## pytest-granularity\n\n" + render_report(results, markdown=True) + "\n"


def gate_markdown(report: GateReport, source: str) -> str:
    """The gate's verdict against the baseline ``source``, its regressions and improvements."""
    lines = [f"### pytest-granularity gate against `{source}`", ""]
    verdict = (
        "**FAILED**: the changes made the agent stack worse." if report.failed else "**passed**: nothing got worse."
    )
    lines += [verdict, ""]
    for title, items in (("Regressions", report.regressions), ("Improvements", report.improvements)):
        if items:
            lines += [f"| {title} |", "|---|", *(f"| {item} |" for item in items), ""]
    if report.stale:
        lines.append(
            f"Stale baseline entries (not run now): {len(report.stale)}; refresh with `--granularity-update-baseline`."
        )
    if report.environment:
        lines.append(f"Note: {report.environment}.")
    return "\n".join(lines) + "\n"


def gate_annotations(report: GateReport) -> list[str]:
    """Workflow commands: an error per regression, a warning for stale entries."""
    lines = [f"::error title=granularity regression::{_escape(r)}" for r in report.regressions]
    if report.stale:
        lines.append(f"::warning title=granularity baseline::{len(report.stale)} stale baseline entries (not run now)")
    return lines


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
