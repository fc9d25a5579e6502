"""Mined tasks run like any others: every policy, the report, explain and tasks stats."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mining_repo import make_repo

from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mining.miner import MineSettings, mine
from pytest_granularity.process.sandbox import NO_SANDBOX

REPO_ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_mined_task_runs_under_every_policy_and_every_command_reads_it(tmp_path: Path) -> None:
    make_repo(tmp_path / "calc")
    out = tmp_path / "mined"
    mine(tmp_path / "calc", out, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    report = tmp_path / "report.json"
    matrix = run(
        "-m",
        "pytest",
        str(out),
        "--granularity=all",
        "-p",
        "no:cacheprovider",
        f"--granularity-router={REPO_ROOT / 'router.json'}",
        f"--granularity-report={report}",
        cwd=tmp_path,
    )
    assert "[micro] PASSED" in matrix.stdout or " passed" in matrix.stdout, matrix.stdout[-3000:]
    rows = {
        line.split()[0]: line
        for line in matrix.stdout.splitlines()
        if line.split()[:1] and line.split()[1:2] == ["none"]
    }
    assert {"micro", "macro", "hybrid", "heuristic", "learned"} <= rows.keys(), matrix.stdout[-3000:]
    assert rows["micro"].split()[3] == "1.000"  # the reference agent solves the mined task by micro tools
    shown = run("-m", "pytest_granularity.cli", "report", str(report), cwd=tmp_path)
    assert shown.returncode == 0 and "micro" in shown.stdout
    task = next(out.glob("*/task.yaml")).parent
    explained = run(
        "-m", "pytest_granularity.cli", "explain", str(task), "--router", str(REPO_ROOT / "router.json"), cwd=tmp_path
    )
    assert explained.returncode == 0 and "heuristic:" in explained.stdout, explained.stderr
    stats = run("-m", "pytest_granularity.cli", "tasks", "stats", str(out), cwd=tmp_path)
    assert stats.returncode == 0 and "| simple | 1 |" in stats.stdout
