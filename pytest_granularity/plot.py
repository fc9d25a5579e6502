"""The picture of a run: success rate against mean tokens, one point per policy and fault.

matplotlib is an optional extra (``pip install 'pytest-granularity[plot]'``); without it the
same points are written as a plain-text chart, so a CI log still shows the trade-off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .metrics import ALL_FAMILIES, Summary

TEXT_WIDTH = 60
TEXT_HEIGHT = 16


def write_plot(path: Path, summaries: Sequence[Summary]) -> Path:
    """Write the PNG at ``path``, or, without matplotlib, a text chart beside it; returns what was written."""
    points = [s for s in summaries if s.family == ALL_FAMILIES]
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib
    except ImportError:
        fallback = path.with_suffix(".txt")
        fallback.write_text(text_chart(points))
        return fallback
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5), dpi=120)
    for s in points:
        low, high = s.success_ci
        axes.errorbar(s.mean_tokens, s.success_rate, yerr=[[s.success_rate - low], [high - s.success_rate]], fmt="o", capsize=4)
        axes.annotate(_label(s), (s.mean_tokens, s.success_rate), textcoords="offset points", xytext=(6, 6), fontsize=8)
    axes.set_xscale("log")
    axes.set_xlabel("mean tokens per run (log scale)")
    axes.set_ylabel("success rate (95% bootstrap interval)")
    axes.set_ylim(-0.05, 1.1)
    axes.set_title("Success against token cost, per policy and fault")
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


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
        legend.append(f"{mark}  {_label(s)}: success {s.success_rate:.3f} [{s.success_ci[0]:.3f}, {s.success_ci[1]:.3f}], {s.mean_tokens:.1f} tokens")
    lines = [f"{1 - r / TEXT_HEIGHT:4.2f} |" + "".join(cells) for r, cells in enumerate(grid)]
    lines.append("     +" + "-" * (TEXT_WIDTH + 1))
    lines.append(f"      0{'mean tokens per run':^{TEXT_WIDTH - 10}}{most:.0f}")
    return "\n".join(["success", *lines, "", *legend]) + "\n"


def _label(s: Summary) -> str:
    return s.policy if s.fault == "none" else f"{s.policy}-{s.fault}"
