"""The full matrix's cost: wall time, where it went by phase, and the floor it is measured against.

Usage: ``python scripts/matrix_profile.py [--workers 2] [--label NAME] [--plot PATH] [--cold]``

Runs ``pytest benchmark_tasks --granularity=all -n WORKERS --dist loadfile`` once, gated on the
committed baseline as CI does, and reads the phase totals of its report (``core/phases.py``). The floor is the work no
harness can avoid: pytest's own test-call time, summed over every pytest run the matrix made
(the agent's runs, macros' validation, the verifier; memo hits made none), divided by the
workers. Prints a markdown table of the phases per policy, the wall time and its ratio to the
floor; ``--plot`` draws the phases as stacked bars (matplotlib, the ``plot`` extra). ``--cold``
starts a fresh interpreter for every pytest run instead of a warm server's child
(``GRANULARITY_COLD_PYTEST=1``, see ``process/pytest_server.py``): the warm runner's saving.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_granularity.core.phases import PHASES
from pytest_granularity.gate.metrics import PhaseTotal
from pytest_granularity.process.pytest_process import COLD_ENV
from pytest_granularity.report.render import PHASE_HEADERS, phase_rows, render

REPO = Path(__file__).resolve().parent.parent


def run_matrix(workers: int, report: Path, cold: bool = False) -> float:
    """The matrix's wall time, start of pytest to its exit."""
    env = dict(os.environ, **({COLD_ENV: "1"} if cold else {}))
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "benchmark_tasks", "--granularity=all", "-n", str(workers)]
    command += ["--dist", "loadfile", "-q", "-p", "no:cacheprovider", f"--granularity-report={report}"]
    command += ["--granularity-baseline=.granularity/baseline.json"]  # as CI gates it: known failures are xfail
    finished = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if finished.returncode != 0:
        sys.exit(f"the matrix failed (exit {finished.returncode}):\n{finished.stdout[-3000:]}")
    return wall


def table(totals: list[dict], wall: float, workers: int, label: str) -> str:
    """The report's phase table (as markdown), then the wall time against the floor."""
    rows = phase_rows([PhaseTotal(**t) for t in totals])
    everything = totals[-1]
    floor = everything["tests"] / workers
    runs_wall = everything["seconds"] / workers
    summary = (
        f"\n{label}: matrix wall {wall:.1f} s with -n {workers}; runs {runs_wall:.1f} s per worker"
        f" (the rest is pytest's start, collection and the session's end: {wall - runs_wall:.1f} s);"
        f" floor {floor:.1f} s (test-call time {everything['tests']:.1f} s / {workers});"
        f" wall / floor = {wall / floor:.1f}"
    )
    return render(PHASE_HEADERS, rows, markdown=True) + "\n" + summary


def plot(totals: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = totals[:-1] if len(totals) > 1 else totals
    figure, axes = plt.subplots(figsize=(8, 4.2))
    left = [0.0] * len(rows)
    for phase in PHASES:
        widths = [t["phases"][phase] for t in rows]
        axes.barh([t["policy"] for t in rows], widths, left=left, label=phase)
        left = [a + b for a, b in zip(left, widths)]
    axes.scatter(
        [t["tests"] for t in rows], [t["policy"] for t in rows], color="black", marker="|", s=300, label="tests"
    )
    axes.set_xlabel("seconds, summed over the policy's runs")
    axes.set_title(title)
    axes.legend(ncol=6, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18))
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--label", default="matrix")
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--json", type=Path, help="also keep the report here (its run records beside it, .jsonl)")
    parser.add_argument("--cold", action="store_true", help="a fresh interpreter for every pytest run")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="granularity-profile-") as scratch:
        report = Path(scratch) / "out.json"
        wall = run_matrix(options.workers, report, options.cold)
        summary = json.loads(report.read_text())
        if options.json:
            options.json.write_text(report.read_text())
            options.json.with_suffix(".jsonl").write_text(report.with_suffix(".jsonl").read_text())
    print(table(summary["phases"], wall, options.workers, options.label))
    if options.plot:
        plot(summary["phases"], options.plot, f"{options.label}: {wall:.0f} s with -n {options.workers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
