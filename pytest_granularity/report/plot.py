"""The picture of a run: success rate against mean tokens, one panel per fault, one colour per policy.

Error bars are the success interval (a cluster bootstrap over tasks when there are epochs) and,
when epochs give one, the mean-tokens interval. ``figure`` returns the matplotlib figure for
embedding elsewhere (an HTML report); ``write_plot`` writes it. matplotlib is an optional extra
(``plot``, installed as ``core.distribution.install_command`` says); without it the same points are written as a
plain-text chart, so a CI log still shows the trade-off.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.failures import Fault
from ..core.output_files import write_text
from ..gate.metrics import ALL_FAMILIES, FAULT_ORDER, POLICY_ORDER, EpochSummary, Summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TEXT_WIDTH = 60
TEXT_HEIGHT = 16
MARKERS = "osD^vPX*"


def plotted(summaries: Sequence[Summary]) -> list[Summary]:
    """The whole-benchmark rows that a verifier judged: an unverified row has no success to place on the y axis."""
    return [s for s in summaries if s.family == ALL_FAMILIES and s.verified]


def write_plot(path: Path, summaries: Sequence[Summary], epochs: Sequence[EpochSummary] = ()) -> Path:
    """Write the PNG at ``path``, or, without matplotlib, a text chart beside it; returns what was written."""
    points = plotted(summaries)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        drawing = figure(points, epochs)
    except ImportError:
        fallback = path.with_suffix(".txt")
        write_text(fallback, text_chart(points))
        return fallback
    try:
        drawing.savefig(path)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    return path


def figure(summaries: Sequence[Summary], epochs: Sequence[EpochSummary] = ()) -> Figure:
    """The figure (raises ImportError without matplotlib).

    A policy keeps its colour and marker in every panel; markers shrink down the policy order, so
    policies at the same point stay visible one inside the other.
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    points = plotted(summaries)
    faults = sorted(
        {s.fault for s in points}, key=lambda f: (FAULT_ORDER.index(f) if f in FAULT_ORDER else len(FAULT_ORDER), f)
    )
    policies = sorted(
        {s.policy for s in points}, key=lambda p: (POLICY_ORDER.index(p) if p in POLICY_ORDER else len(POLICY_ORDER), p)
    )
    token_ci = {(e.policy, e.fault): e.tokens_ci for e in epochs}
    drawing = Figure(figsize=(4.2 * max(1, len(faults)), 4.6), dpi=120, layout="constrained")
    panels = drawing.subplots(1, max(1, len(faults)), sharex=True, sharey=True, squeeze=False)[0]
    spans = {(s.policy, s.fault): token_ci.get((s.policy, s.fault), (s.mean_tokens, s.mean_tokens)) for s in points}
    scale, limits = _token_axis([x for span in spans.values() for x in span])
    for axes, fault in zip(panels, faults):
        for s in (s for s in points if s.fault == fault):
            index = policies.index(s.policy)
            low, high = s.success_ci
            x_low, x_high = spans[(s.policy, s.fault)]
            axes.errorbar(
                s.mean_tokens,
                s.success_rate,
                xerr=[[s.mean_tokens - x_low], [x_high - s.mean_tokens]],
                yerr=[[s.success_rate - low], [high - s.success_rate]],
                fmt=MARKERS[index % len(MARKERS)],
                color=f"C{index % 10}",
                markersize=max(5, 13 - 2 * index),
                capsize=4,
                alpha=0.85,
                label=s.policy,
            )
        axes.set_xscale(scale)
        if limits is not None:
            axes.set_xlim(*limits)
        if scale == "log":
            axes.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axes.xaxis.set_major_formatter(FuncFormatter(_tokens_label))
            axes.xaxis.set_minor_formatter(NullFormatter())
        axes.set_title(f"fault: {fault}")
        axes.set_xlabel(f"mean tokens per run{' (log scale)' if scale == 'log' else ''}")
        axes.set_ylim(-0.05, 1.08)
        axes.margins(x=0.12)
        axes.grid(True, which="both", alpha=0.3)
    panels[0].set_ylabel("success rate (95% interval)")
    handles: dict[str, Any] = {}
    for axes in panels:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    drawing.legend(
        [handles[p] for p in policies if p in handles],
        [p for p in policies if p in handles],
        loc="outside lower center",
        ncols=len(policies),
        title="policy",
    )
    drawing.suptitle("Success against token cost")
    return drawing


def _token_axis(reach: Sequence[float]) -> tuple[str, tuple[float, float] | None]:
    """The token axis's scale, and its limits where matplotlib's own would have no width: every point at one
    token count (a run of one policy, as ``--granularity=hybrid`` draws), or none above zero (which a log
    axis cannot show)."""
    positive = [x for x in reach if x > 0]
    if not positive:
        return "linear", (-1.0, 1.0)
    low, high = min(positive), max(positive)
    return "log", ((low / 2, high * 2) if low == high else None)


def _tokens_label(value: float, _position: object = None) -> str:
    return f"{value / 1000:g}k" if value >= 1000 else f"{value:g}"


def text_chart(points: Sequence[Summary]) -> str:
    """A scatter of success (rows) against mean tokens (columns, linear), with a legend."""
    if not points:
        return "no runs\n"
    most = max(s.mean_tokens for s in points) or 1.0
    grid = [[" "] * (TEXT_WIDTH + 1) for _ in range(TEXT_HEIGHT + 1)]
    legend = []
    for index, s in enumerate(points):
        mark = chr(ord("A") + index % 26)
        row = TEXT_HEIGHT - round(s.success_rate * TEXT_HEIGHT)
        column = round(s.mean_tokens / most * TEXT_WIDTH)
        grid[row][column] = mark
        legend.append(
            f"{mark}  {_label(s)}: success {s.success_rate:.3f} "
            f"[{s.success_ci[0]:.3f}, {s.success_ci[1]:.3f}], {s.mean_tokens:.1f} tokens"
        )
    lines = [f"{1 - r / TEXT_HEIGHT:4.2f} |" + "".join(cells) for r, cells in enumerate(grid)]
    lines.append("     +" + "-" * (TEXT_WIDTH + 1))
    lines.append(f"      0{'mean tokens per run':^{TEXT_WIDTH - 10}}{most:.0f}")
    return "\n".join(["success", *lines, "", *legend]) + "\n"


def _label(s: Summary) -> str:
    return s.policy if s.fault == Fault.NONE else f"{s.policy}-{s.fault}"
