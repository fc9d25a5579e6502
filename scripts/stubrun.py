"""Shared by the model scripts: run the benchmark through pytest against a local stub server."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARK = REPO / "benchmark_tasks"


def benchmark_tasks() -> list:
    from pytest_granularity.core.tasks import load_task

    return [load_task(p) for p in sorted(BENCHMARK.glob("*/task.yaml"))]


def run_pytest(report: Path, *args: str) -> float:
    """Run the benchmark with ``args``, writing ``report``; the wall time in seconds."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(BENCHMARK),
        "-q",
        "-p",
        "no:cacheprovider",
        f"--granularity-report={report}",
        *args,
    ]
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if result.returncode not in (0, 1):
        sys.exit(f"pytest exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed


def openai_args(model: str = "reference", base_url: str | None = None) -> list[str]:
    args = ["--granularity-agent=openai", f"--granularity-model={model}"]
    return args + ([f"--granularity-base-url={base_url}"] if base_url else [])
