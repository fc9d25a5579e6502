"""The browsable report: one self-contained HTML page with every run's transcript, diff and transitions.

People debug agents by reading runs, so the page must open anywhere a CI artifact lands: no
network, no server, no CDN. Everything a model or a file wrote is data: it travels in JSON
blocks and the page's own script puts it on screen with ``textContent`` only, building a run's
details when it is first opened, from a block of its own parsed only then, and listing 500 runs
at a time (so 5,000 runs open at once). A Content-Security-Policy allows only this page's own
script and style, by hash, so no text in a run can ever run script.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import __version__
from ..core.output_files import write_text
from ..core.result import Outcome, RunResult
from ..gate.metrics import EpochSummary, Summary, epoch_summaries, paired_differences, phase_totals, summarize
from .plot import write_plot
from .render import PAIR_HEADERS, PHASE_HEADERS, SUMMARY_HEADERS, pair_rows, phase_rows, summary_rows

if TYPE_CHECKING:
    import jinja2

TITLE = "pytest-granularity runs"
VERIFIER_TAIL_LINES = 60
FILTER_FIELDS = ("policy", "fault", "outcome", "family")
RUN_COLUMNS = ("task", "family", "policy", "fault", "outcome", "steps", "tokens", "failure_class", "mode")
PROVIDER_COLUMN = "provider_tokens"
OUTCOME_ORDER = {Outcome.ERROR: 0, Outcome.FAILED: 1, Outcome.PASSED: 2}
SHARED = "\u0000"
SHARE_MIN_CHARS = 200
DETAIL_FIELDS = ("transcript", "diff", "verifier_tail", "model_calls")
"""A run's heavy fields: each run's travel in a JSON block of its own, parsed when the run is first opened,
so a page of 5,000 runs parses only its table at load."""


def run_id(result: RunResult) -> str:
    """The anchor of a run in the page: ``#run=task|policy|fault`` (``|e<k>`` for epochs after the first)."""
    return "|".join(result.key) + (f"|e{result.epoch}" if result.epoch else "")


def failures_first(results: Sequence[RunResult]) -> list[RunResult]:
    return sorted(results, key=lambda r: (OUTCOME_ORDER.get(r.outcome, -1), r.run_key))


def tail(text: str, lines: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_payload(result: RunResult) -> dict[str, Any]:
    """The run record as the page needs it: every field, but only the tail of the verifier's output."""
    data = result.to_dict()
    data["id"] = run_id(result)
    data["verifier_tail"] = tail(data.pop("verifier_output"), VERIFIER_TAIL_LINES)
    return data


def _text_slots(run: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Where a run's long texts live: its diff, verifier tail, every message and every tool call's arguments."""
    yield run, "diff"
    yield run, "verifier_tail"
    for message in run["transcript"]:
        yield message, "content"
        arguments = (message.get("tool_call") or {}).get("arguments") or {}
        yield from ((arguments, key) for key, value in arguments.items() if isinstance(value, str))
        for call in message.get("tool_calls") or ():  # the chat-completions wire format: arguments as JSON text
            yield call.get("function") or {}, "arguments"


def share_repeated_texts(runs: list[dict[str, Any]]) -> list[str]:
    """Store each long text that several runs repeat once; returns the table of shared texts.

    The same file is read, and the same final diff reached, by many policies of one task, so
    the full matrix repeats most of its text. A shared text is replaced by ``SHARED`` plus its
    index in the table; a text that itself starts with ``SHARED`` is always shared, so no text
    can be mistaken for a reference.
    """
    counts = Counter(
        holder[key] for run in runs for holder, key in _text_slots(run) if isinstance(holder.get(key), str)
    )
    table: dict[str, str] = {}
    for run in runs:
        for holder, key in _text_slots(run):
            text = holder.get(key)
            if isinstance(text, str) and (
                text.startswith(SHARED) or (len(text) >= SHARE_MIN_CHARS and counts[text] > 1)
            ):
                holder[key] = table.setdefault(text, f"{SHARED}{len(table)}")
    return list(table)


def plot_image(summaries: Sequence[Summary], epochs: Sequence[EpochSummary] = ()) -> tuple[str | None, str | None]:
    """The plot as (base64 PNG, None), or (None, text chart) where matplotlib is missing."""
    with tempfile.TemporaryDirectory(prefix="granularity-plot-") as scratch:
        written = write_plot(Path(scratch) / "plot.png", summaries, epochs)
        if written.suffix == ".png":
            return base64.b64encode(written.read_bytes()).decode("ascii"), None
        return None, written.read_text()


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(script: str, style: str) -> str:
    """Nothing but this page's own script and style (by hash) and inline images."""
    return (
        f"default-src 'none'; script-src {_csp_hash(script)}; style-src {_csp_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def _environment() -> jinja2.Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("pytest_granularity.report", "templates"), autoescape=True, undefined=StrictUndefined
    )


def render_html(results: Sequence[RunResult], title: str = TITLE) -> str:
    env = _environment()
    assert env.loader is not None  # _environment always sets one
    script = env.loader.get_source(env, "report.js")[0]
    style = env.loader.get_source(env, "report.css")[0]
    ordered = failures_first(results)
    columns = list(RUN_COLUMNS)
    if any(getattr(r, "provider_prompt_tokens", None) is not None for r in ordered):
        columns.insert(columns.index("tokens") + 1, PROVIDER_COLUMN)
    summaries = summarize(ordered)
    plot_png, plot_text = plot_image(summaries, epoch_summaries(ordered))
    counts = Counter(r.outcome for r in ordered)
    runs = [run_payload(r) for r in ordered]
    shared = share_repeated_texts(runs)
    details = [{key: run.pop(key) for key in DETAIL_FIELDS} for run in runs]
    return env.get_template("report.html.j2").render(
        title=title,
        generator=f"pytest-granularity {__version__}",
        csp=content_security_policy(script, style),
        script=script,
        style=style,
        runs=ordered,
        outcome_counts=[(o, counts[o]) for o in sorted(counts, key=lambda o: OUTCOME_ORDER.get(o, -1))],
        summary_headers=SUMMARY_HEADERS,
        summary_rows=summary_rows(summaries),
        pair_headers=PAIR_HEADERS,
        pair_rows=pair_rows(paired_differences(ordered)),
        phase_headers=PHASE_HEADERS,
        phase_rows=phase_rows(phase_totals(ordered)),
        plot_png=plot_png,
        plot_text=plot_text,
        filter_fields=FILTER_FIELDS,
        run_headers=[c.replace("_", " ") for c in columns],
        details=details,
        shared=shared,
        payload={
            "runs": runs,
            "run_columns": columns,
            "filter_fields": FILTER_FIELDS,
            "verifier_tail_lines": VERIFIER_TAIL_LINES,
        },
    )


def write_html(path: Path, results: Sequence[RunResult]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, render_html(results))
    return path
