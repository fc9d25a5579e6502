"""The sandbox's cost: median wall time of one pytest run and one macro call, with and without bwrap.

Usage: ``PYTHONPATH=. python scripts/sandbox_cost.py [TASK_FOLDER] [--repeats N]``

One pytest run is what ``run_tests``, a macro's validation and the verifier each cost: the
task's own test suite in a fresh workspace, through ``pytest_process`` (its memo bypassed), as
a warm server's child and as a fresh interpreter (``GRANULARITY_COLD_PYTEST=1``). One
macro call is a ``replace_and_verify`` replacement without validation: a forked child without
the sandbox, a child of the sandboxed macro server with it (its first call starts the server).
Modes alternate, so a machine that gets busier mid-way weighs on both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from pytest_granularity.core.tasks import load_task
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroContext, MacroRegistry
from pytest_granularity.macros.runtime import answer_of, start_macro_process
from pytest_granularity.process.pytest_process import COLD_ENV, _run
from pytest_granularity.process.sandbox import NO_SANDBOX, Sandbox, probe, select

DEFAULT_TASK = Path(__file__).resolve().parent.parent / "benchmark_tasks" / "hookshot-fix-default-max-retries"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", nargs="?", type=Path, default=DEFAULT_TASK)
    parser.add_argument("--repeats", type=int, default=15)
    options = parser.parse_args()
    problem = probe()
    if problem is not None:
        print(f"cannot measure: {problem}")
        return 1
    task = load_task(options.task)
    modes = (NO_SANDBOX, select("bwrap"))
    pytest_seconds: dict[str, list[float]] = {f"{m.mode} {w}": [] for m in modes for w in ("cold", "warm")}
    macro_seconds: dict[str, list[float]] = {m.mode: [] for m in modes}
    with Workspace.for_task(task) as ws:
        for _ in range(options.repeats):
            for sandbox in modes:
                for way in ("cold", "warm"):
                    pytest_seconds[f"{sandbox.mode} {way}"].append(_time_pytest(ws, list(task.tests), sandbox, way))
                macro_seconds[sandbox.mode].append(_time_macro(ws, sandbox))
    print(f"task {task.id}, {options.repeats} repeats per mode, medians (seconds):")
    for way in ("cold", "warm"):
        _print(f"pytest {way}", {m.mode: pytest_seconds[f"{m.mode} {way}"] for m in modes})
    _print("macro call", macro_seconds)
    for sandbox in modes:
        cold, warm = (statistics.median(pytest_seconds[f"{sandbox.mode} {w}"]) for w in ("cold", "warm"))
        print(f"  warm / cold under {sandbox.mode}: {warm:.3f} / {cold:.3f} = {warm / cold:.2f}")
    return 0


def _print(label: str, samples: dict[str, list[float]]) -> None:
    plain, boxed = statistics.median(samples["none"]), statistics.median(samples["bwrap"])
    print(
        f"  {label:<11} none {plain:.3f}  bwrap {boxed:.3f}  difference {boxed - plain:+.3f}  ratio {boxed / plain:.2f}"
    )


def _time_pytest(ws: Workspace, tests: list[str], sandbox: Sandbox, way: str) -> float:
    if way == "cold":
        os.environ[COLD_ENV] = "1"
    started = time.perf_counter()
    try:
        run = _run(ws.root, tests, 120.0, False, sandbox)
    finally:
        os.environ.pop(COLD_ENV, None)
    elapsed = time.perf_counter() - started
    if run.timed_out or run.exit_code not in (0, 1):
        raise SystemExit(f"the pytest run failed under {sandbox.mode}:\n{run.tail()}")
    return elapsed


def _time_macro(ws: Workspace, sandbox: Sandbox) -> float:
    """A replacement and its reversal: the workspace ends as it began."""
    macro = MacroRegistry.load().get("replace_and_verify")
    assert macro is not None
    path = sorted(p for p in ws.initial if p.endswith(".py"))[0]
    text = (ws.root / path).read_text()
    line = next(line for line in text.splitlines() if line.strip() and text.count(line) == 1)
    started = time.perf_counter()
    for old, new in ((line, line + "  # sandbox-cost"), (line + "  # sandbox-cost", line)):
        ctx = MacroContext(ws, {"files": [path], "old": old, "new": new}, sandbox=sandbox)
        with start_macro_process({"run": macro.run}, ctx) as process:
            answer_of(process.ask("run", 60.0), 60.0)
    return (time.perf_counter() - started) / 2


if __name__ == "__main__":
    sys.exit(main())
