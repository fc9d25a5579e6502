"""Check a built wheel the way a user meets it: installed into a fresh virtual environment outside the clone.

From a temporary folder that holds no file of this repository, with the wheel's own ``granularity`` and
``python``: ``granularity --help`` and ``--version`` (the wheel's version), one benchmark task (copied with its
fixture) under micro, macro and hybrid with its faults, recorded as a baseline and then gated against it with the
HTML report written, and ``granularity check-contracts`` on the builtin macros (from an empty folder). What a run
needs at run time (schemas, templates, the builtin macros) must therefore be in the wheel. ``.ci/run`` runs it on
the wheel it built; dependencies come from the package index.

    python scripts/wheel_smoke.py [--dist dist]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASK = "textkit-recover-min-keyword-length"
"""A task with faults, so the wheel's recovery runs too (macro and hybrid, each with an early and a late fault)."""


def run(command: list[str], cwd: Path, env: dict[str, str], status: int = 0) -> str:
    """Run one step; its output is returned, and any other exit status stops the smoke with the step's output."""
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    print(f"{time.monotonic() - started:6.1f} s  {Path(command[0]).name} {' '.join(command[1:])}", flush=True)
    if result.returncode != status:
        sys.exit(f"failed (exit {result.returncode}, not {status}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


def wheel_in(dist: Path) -> Path:
    wheels = sorted(dist.glob("pytest_granularity-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"expected one pytest_granularity wheel in {dist}, found {[w.name for w in wheels]}")
    return wheels[0]


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(f"failed: {message}")


def smoke(wheel: Path, folder: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv, work = folder / "venv", folder / "work"
    # Without a pip of its own (ensurepip costs 10 s): this interpreter's pip installs into it.
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], folder, env)
    bin_ = venv / "bin"
    env["PATH"] = f"{bin_}{os.pathsep}{env.get('PATH', '')}"
    run([sys.executable, "-m", "pip", "--python", str(bin_ / "python"), "install", "--quiet", str(wheel)], folder, env)
    shutil.copytree(REPO / "benchmark_tasks" / TASK, work / "tasks" / TASK)
    shutil.copytree(REPO / "fixtures" / "textkit", work / "fixtures" / "textkit")
    where = run([str(bin_ / "python"), "-c", "import pytest_granularity as p; print(p.__file__)"], work, env)
    check(Path(where.strip()).is_relative_to(venv), f"the package was imported from {where.strip()}, not the venv")
    check("check-contracts" in run([str(bin_ / "granularity"), "--help"], work, env), "--help lists the commands")
    version = wheel.name.split("-")[1]
    shown = run([str(bin_ / "granularity"), "--version"], work, env)
    check(shown == f"granularity {version}\n", f"--version said {shown!r}, the wheel is {version}")
    pytest = [
        str(bin_ / "python"),
        "-m",
        "pytest",
        "tasks",
        "--granularity=micro,macro,hybrid",
        "-p",
        "no:cacheprovider",
    ]
    # The macro policy does not recover from the early fault: that run fails, and the baseline records it.
    recorded = run([*pytest, "--granularity-baseline=baseline.json", "--granularity-update-baseline"], work, env, 1)
    check("1 failed, 6 passed" in recorded, f"7 runs, all but macro with the early fault pass:\n{recorded}")
    gated = run([*pytest, "--granularity-baseline=baseline.json", "--granularity-html=runs.html"], work, env)
    check("gate passed" in gated and "6 passed, 1 xfailed" in gated, f"the gate passes on the same runs:\n{gated}")
    check("<html" in (work / "runs.html").read_text(encoding="utf-8"), "the HTML report was written")
    empty = folder / "empty"
    empty.mkdir()
    contracts = run([str(bin_ / "granularity"), "check-contracts"], empty, env)
    check(
        " passed" in contracts and "failed" not in contracts, f"the builtin macros pass their contracts:\n{contracts}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="the folder python -m build wrote")
    args = parser.parse_args()
    wheel = wheel_in(args.dist)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="granularity-wheel-") as folder:
        smoke(wheel.resolve(), Path(folder))
    print(f"wheel smoke passed: {wheel.name} in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
