"""Rendering results: the terminal table, a markdown table, and the JSON report files.

The JSON report is public: ``schema_version`` changes whenever a field changes meaning or goes
away, so programs that read it can refuse what they do not understand. Beside ``out.json``
(the summaries) the run records go to ``out.jsonl``, one run per line with its transcript and
state-machine transitions, so any run can be inspected afterwards.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from statistics import fmean, stdev
from typing import Any

from ..core import __version__
from ..core.audit import audit_records, is_audit_log
from ..core.errors import InputError
from ..core.output_files import write_text
from ..core.phases import PHASES, TESTS
from ..core.result import RunResult, TokenSource
from ..core.schemas import DefinitionError, check, first_error, packaged_schema, parse_json, read_json, read_text
from ..gate.metrics import (
    ALL_FAMILIES,
    EpochSummary,
    MacroAudit,
    PairedDifference,
    PhaseTotal,
    Summary,
    epoch_summaries,
    macro_audit,
    paired_differences,
    phase_totals,
    slowest_runs,
    summarize,
    wall_seconds,
)
from .model_summary import HEADERS as MODEL_HEADERS
from .model_summary import fingerprints, model_runs
from .model_summary import rows as model_rows

SCHEMA_VERSION = 2
MARK_START = "<!-- granularity:table -->"
MARK_END = "<!-- /granularity:table -->"

SUMMARY_HEADERS = (
    "policy",
    "fault",
    "runs",
    "success",
    "95% CI",
    "steps",
    "tokens",
    "macro cov",
    "adoption",
    "transition",
    "G",
    "oracle gap",
    "errors",
    "failure classes",
)
PAIR_HEADERS = ("fault", "a - b", "tasks", "success diff", "95% CI", "tokens diff", "95% CI")
AUDIT_HEADERS = ("macro", "calls", "failures", "mean s", "p95 s", "mean tokens of its runs")
RUN_HEADERS = ("task", "policy", "fault", "outcome", "steps", "tokens", "macro cov", "failure class")
EPOCH_HEADERS = (
    "policy",
    "fault",
    "tasks",
    "epochs",
    "success",
    "95% CI (tasks)",
    "always / sometimes / never",
    "pass@1",
    "pass@k",
    "pass^k",
    "tokens",
    "95% CI (tasks)",
    "sd within task",
)
TASK_HEADERS = ("task", "policy", "fault", "successes", "tokens mean", "sd")
PHASE_HEADERS = ("policy", "runs", "wall s", *PHASES, "tests s", "x tests")
SLOW_HEADERS = ("task", "policy", "fault", "wall s", "slowest phase", "tests s")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(interval: tuple[float, float], digits: int = 3) -> str:
    return f"[{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def summary_rows(summaries: Sequence[Summary], cost: bool = False) -> list[tuple[str, ...]]:
    return [
        (
            _row_name(s),
            s.fault,
            str(s.runs),
            _fmt(s.success_rate) if s.verified else "-",
            _ci(s.success_ci) if s.verified else "-",
            f"{s.mean_steps:.2f} / {s.median_steps:g}",
            f"{s.mean_tokens:.1f} / {s.median_tokens:g}",
            _fmt(s.macro_coverage),
            _fmt(s.macro_adoption),
            _fmt(s.transition_rate),
            _fmt(s.g_score, 4),
            _fmt(s.oracle_gap),
            str(s.errors),
            ", ".join(f"{k}={v}" for k, v in s.failure_classes.items()) or "-",
        )
        + ((_fmt(s.mean_cost, 4),) if cost else ())
        for s in summaries
    ]


def _row_name(s: Summary) -> str:
    """The policy, its family when the row is one family's, and ``unverified`` for served tasks no verifier judged."""
    qualifiers = ([] if s.family == ALL_FAMILIES else [s.family]) + ([] if s.verified else ["unverified"])
    return f"{s.policy} ({', '.join(qualifiers)})" if qualifiers else s.policy


def pair_rows(pairs: Sequence[PairedDifference]) -> list[tuple[str, ...]]:
    return [
        (
            p.fault,
            f"{p.a} - {p.b}",
            str(p.tasks),
            f"{p.success_diff:+.3f}",
            _ci(p.success_ci),
            f"{p.tokens_diff:+.1f}",
            _ci(p.tokens_ci, 1),
        )
        for p in pairs
    ]


def audit_rows(audits: Sequence[MacroAudit]) -> list[tuple[str, ...]]:
    return [
        (
            a.macro,
            str(a.calls),
            ", ".join(f"{k}={v}" for k, v in a.failures.items()) or "-",
            f"{a.mean_seconds:.3f}",
            f"{a.p95_seconds:.3f}",
            f"{a.mean_tokens_of_runs:.1f}",
        )
        for a in audits
    ]


def run_rows(results: Sequence[RunResult]) -> list[tuple[str, ...]]:
    return [
        (
            r.task,
            r.policy,
            r.fault,
            r.outcome,
            str(r.steps),
            str(r.tokens),
            _fmt(r.macro_coverage),
            r.failure_class or "-",
        )
        for r in sorted(results, key=lambda r: r.run_key)
    ]


def epoch_rows(summaries: Sequence[EpochSummary]) -> list[tuple[str, ...]]:
    return [
        (
            e.policy,
            e.fault,
            str(e.tasks),
            str(e.epochs),
            _fmt(e.success_rate),
            _ci(e.success_ci),
            f"{e.always} / {e.tasks - e.always - e.never} / {e.never}",
            _fmt(e.pass_at_k["1"]),
            _fmt(e.pass_at_k[str(e.epochs)]),
            _fmt(e.pass_hat_k[str(e.epochs)]),
            f"{e.mean_tokens:.1f}",
            _ci(e.tokens_ci, 1),
            f"{e.tokens_within_sd:.1f}",
        )
        for e in summaries
    ]


def task_rows(summaries: Sequence[EpochSummary], results: Sequence[RunResult]) -> list[tuple[str, ...]]:
    """Per task of each repeated policy and fault: successes of runs, and tokens across them."""
    cells: dict[tuple[str, str, str], list[RunResult]] = {}
    for r in sorted(results, key=lambda r: r.run_key):
        cells.setdefault(r.key, []).append(r)
    repeated = {(e.policy, e.fault) for e in summaries}
    rows: list[tuple[str, ...]] = []
    for (task, policy, fault), runs in cells.items():
        if (policy, fault) in repeated:
            tokens = [float(r.tokens) for r in runs]
            sd = f"{stdev(tokens):.1f}" if len(tokens) > 1 else "-"
            rows.append(
                (task, policy, fault, f"{sum(r.success for r in runs)}/{len(runs)}", f"{fmean(tokens):.1f}", sd)
            )
    return rows


def phase_rows(totals: Sequence[PhaseTotal]) -> list[tuple[str, ...]]:
    """Seconds per phase; ``x tests`` is the wall time over pytest's own test time (1.0 would be no overhead)."""
    return [
        (
            t.policy,
            str(t.runs),
            f"{t.seconds:.1f}",
            *(f"{t.phases[name]:.1f}" for name in PHASES),
            f"{t.tests:.1f}",
            f"{t.seconds / t.tests:.1f}" if t.tests else "-",
        )
        for t in totals
    ]


def slow_rows(results: Sequence[RunResult]) -> list[tuple[str, ...]]:
    return [
        (r.task, r.policy, r.fault, f"{wall_seconds(r):.2f}", _slowest_phase(r), f"{r.phases.get(TESTS, 0.0):.2f}")
        for r in results
    ]


def _slowest_phase(result: RunResult) -> str:
    phase = max(PHASES, key=lambda name: result.phases.get(name, 0.0))
    return f"{phase} {result.phases.get(phase, 0.0):.2f}"


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with control characters shown as ``\\xNN``: a record's fields are data, and an escape sequence
    in one (``\\x1b[2J``) would otherwise drive the terminal that prints the report."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """An aligned plain-text table, or a markdown one; every cell printable and on one line."""
    rows = [[printable(cell).replace("\n", "\\n") for cell in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    table = [tuple(headers), *map(tuple, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_table(summaries: Sequence[Summary], markdown: bool = False) -> str:
    """The main table; a ``cost`` column (mean USD per run) is added when any run was priced."""
    shown = [s for s in summaries if s.family == ALL_FAMILIES]
    cost = any(s.mean_cost is not None for s in shown)
    return render(SUMMARY_HEADERS + (("cost",) if cost else ()), summary_rows(shown, cost), markdown)


def token_note(results: Sequence[RunResult]) -> str | None:
    """Which tokens the table shows, when some are the provider's rather than the local count."""
    provider = sum(r.token_source == TokenSource.PROVIDER for r in results)
    if not provider:
        return None
    return (
        f"tokens: the provider's reported usage for {provider} of {len(results)} runs "
        "(the local cl100k count is in each record's local_tokens; --granularity-token-source=local uses it)"
    )


def render_markdown(summaries: Sequence[Summary]) -> str:
    return render_table(summaries, markdown=True)


def render_report(results: Sequence[RunResult], markdown: bool = False, verbose: bool = False) -> str:
    """The main table, the paired differences, and with ``verbose`` the families and every run."""
    summaries = summarize(results, by_family=verbose)
    parts = [render_table(summaries, markdown)]
    note = token_note(results)
    if note:
        parts.append(note)
    models = model_runs(results)
    if models:
        servers = "".join(f"\nserver: {f}" for f in fingerprints(results))
        parts.append("model replies:\n" + render(MODEL_HEADERS, model_rows(models), markdown) + servers)
    epochs = epoch_summaries(results)
    if epochs:
        parts.append(
            "epochs (k = the epochs; intervals resample tasks with all their runs):\n"
            + render(EPOCH_HEADERS, epoch_rows(epochs), markdown)
        )
    pairs = paired_differences(results)
    if pairs:
        parts.append(
            "paired differences (same tasks, same fault):\n" + render(PAIR_HEADERS, pair_rows(pairs), markdown)
        )
    totals = phase_totals(results)
    if totals:
        parts.append(
            "where the time went (seconds summed over runs):\n" + render(PHASE_HEADERS, phase_rows(totals), markdown)
        )
    if verbose:
        slow = slowest_runs(results)
        if slow:
            parts.append("slowest runs:\n" + render(SLOW_HEADERS, slow_rows(slow), markdown))
        by_family = [s for s in summaries if s.family != ALL_FAMILIES]
        parts.append("by family:\n" + render(SUMMARY_HEADERS, summary_rows(by_family), markdown))
        audits = macro_audit(results)
        if audits:
            parts.append("macro audit:\n" + render(AUDIT_HEADERS, audit_rows(audits), markdown))
        if epochs:
            parts.append("tasks over epochs:\n" + render(TASK_HEADERS, task_rows(epochs, results), markdown))
        parts.append("runs:\n" + render(RUN_HEADERS, run_rows(results), markdown))
    return printable("\n\n".join(parts))


def write_report(path: Path, results: Sequence[RunResult]) -> tuple[Path, Path]:
    """Write ``path`` (summaries) and ``path`` with ``.jsonl`` (run records); returns both paths."""
    ordered = sorted(results, key=lambda r: r.run_key)
    summary: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "generator": f"pytest-granularity {__version__}",
        "runs": len(ordered),
        "summaries": [{**asdict(s), "success_rate": s.success_rate} for s in summarize(ordered, by_family=True)],
        "paired_differences": [asdict(p) for p in paired_differences(ordered)],
        "macro_audit": [asdict(a) for a in macro_audit(ordered)],
    }
    totals = phase_totals(ordered)
    if totals:
        summary["phases"] = [asdict(t) for t in totals]
    if any(r.model_calls for r in ordered):
        summary["model_runs"] = [asdict(m) for m in model_runs(ordered)]
        summary["model_servers"] = fingerprints(ordered)
    epochs = epoch_summaries(ordered)
    if epochs:
        summary["epochs"] = [asdict(e) for e in epochs]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(summary, indent=2, sort_keys=True) + "\n")
    records = path.with_suffix(".jsonl")
    write_text(records, "".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in ordered))
    return path, records


TIMINGS = frozenset({"seconds", "mean_seconds", "p95_seconds", "phases"})
"""The fields that hold measured time: the only ones that differ between two runs of the same session."""


def without_timings(text: str) -> str:
    """A report's text (``out.json``, or ``out.jsonl`` line by line) less every measured time, for comparing runs."""
    lines = [text] if text.lstrip().startswith("{\n") else text.splitlines()
    return "\n".join(json.dumps(_untimed(json.loads(line)), sort_keys=True) for line in lines if line.strip())


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def read_records(path: Path) -> list[RunResult]:
    """The run records of a saved report (``out.json`` or its ``out.jsonl``), or of an MCP audit log.

    Both files are validated against their schemas before use; a bad one is one
    :class:`~pytest_granularity.core.schemas.DefinitionError` naming the file, the line and the field.
    """
    if _is_audit_log(path):
        return audit_records(path)
    runs = path.with_suffix(".jsonl")
    if path == runs:  # the file given is read first, so that an error names the file the user gave
        records = read_record_lines(runs)
        read_summary(path)
        return records
    read_summary(path)
    return read_record_lines(runs)


def _is_audit_log(path: Path) -> bool:
    """``audit.is_audit_log``, for a first line too deeply nested to decode too (then it is no audit log)."""
    try:
        return is_audit_log(path)
    except RecursionError:
        return False


def read_summary(path: Path) -> dict[str, Any]:
    """The summary file (``out.json``) of a report, checked to be one this release reads."""
    summary_path = path.with_suffix(".json")
    summary: dict[str, Any] = read_json(summary_path)
    check(summary_path, packaged_schema("report.schema.json"), summary)
    if summary["schema_version"] != SCHEMA_VERSION:
        raise DefinitionError(
            summary_path,
            "schema_version",
            f"{summary['schema_version']} is not {SCHEMA_VERSION} (this release reads schema version {SCHEMA_VERSION})",
        )
    return summary


def read_record_lines(path: Path) -> list[RunResult]:
    """Run records, one JSON object per line (a report's ``out.jsonl``, or saved training runs)."""
    schema = packaged_schema("run_record.schema.json")
    records = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            data = parse_json(line, path, number)
            error = first_error(schema, data)
            if error is not None:
                raise DefinitionError(path, *error, line=number)
            records.append(RunResult.from_dict(data))
    return records


def merged_records(paths: Sequence[Path]) -> list[RunResult]:
    """The runs of several reports (one per CI shard, say) as one list, for ``granularity merge``.

    Only the shards of one session merge: a run in two reports would count twice in every
    summary, and reports of different epochs or releases would be paired as if comparable, so
    each is an error (``InputError``, as for a report that cannot be read).
    """
    by_path = {path: read_records(path) for path in paths}
    _check_one_session(by_path)
    records = [record for path in paths for record in by_path[path]]
    counts = Counter(record.run_key for record in records)
    duplicated = sorted(key for key, count in counts.items() if count > 1)
    if duplicated:
        raise InputError(f"runs appear in more than one report: {duplicated[:5]}")
    return records


ONE_SESSION = "merge only the shards of one session"


def _check_one_session(by_path: dict[Path, list[RunResult]]) -> None:
    """Every report (not audit log) was written by one release and holds the same epochs."""
    reports = [path for path in by_path if not _is_audit_log(path)]
    if not reports:
        return
    first, rest = reports[0], reports[1:]
    first_generator = _generator(first)
    for path in rest:
        generator = _generator(path)
        if generator != first_generator:
            raise InputError(
                f"{path.with_suffix('.json')} was written by {generator}, "
                f"{first.with_suffix('.json')} by {first_generator}: {ONE_SESSION}"
            )
    held = [(path, sorted({r.epoch for r in by_path[path]})) for path in reports if by_path[path]]
    for path, epochs in held[1:]:
        if epochs != held[0][1]:
            raise InputError(
                f"{path.with_suffix('.jsonl')} holds {_epochs(epochs)} but "
                f"{held[0][0].with_suffix('.jsonl')} holds {_epochs(held[0][1])}: {ONE_SESSION}"
            )


def _generator(path: Path) -> str:
    return str(read_summary(path).get("generator", "an unknown release"))


def _epochs(epochs: list[int]) -> str:
    return ("epoch " if len(epochs) == 1 else "epochs ") + ", ".join(map(str, epochs))


def update_markdown(path: Path, summaries: Sequence[Summary]) -> None:
    """Replace the table between the ``granularity:table`` markers in a markdown file."""
    text = read_text(path)
    if MARK_START not in text or MARK_END not in text:
        raise InputError(f"{path}: no '{MARK_START}' ... '{MARK_END}' block to replace")
    block = f"{MARK_START}\n{render_markdown(summaries)}\n{MARK_END}"
    path.write_text(re.sub(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), lambda _: block, text, flags=re.S))
