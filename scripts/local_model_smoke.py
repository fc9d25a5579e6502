"""The live smoke of ``.ci/run``: the bundled model's real server behind two tasks and two policies.

Runs ``pytest`` on two tasks (two families) with ``micro`` and ``hybrid``, ``--granularity-agent=local``
and ``-n 2``, so each xdist worker starts and stops a server of its own. It passes when every run
reached a verdict (the model fails them, as a 135M model does: that is not what is checked),
none is an infrastructure error, the report names the server it talked to, and no model server
is left running. What the model says is never asserted.

    python scripts/local_model_smoke.py [--steps 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASKS = ("textkit-slug-length-80", "ledgerflow-move-periods")
SERVER = "pytest_granularity.agents.llama_server"


def running(*markers: str) -> set[int]:
    """The processes alive now whose command line holds any of ``markers`` (the host lane's script uses it too)."""
    pids = set()
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().decode("utf-8", "replace") if proc.name.isdigit() else ""
        except OSError:
            continue
        if any(marker in command for marker in markers):
            pids.add(int(proc.name))
    return pids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    before = running(SERVER)
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "smoke.json"
        started = time.monotonic()
        pytest = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *(str(REPO / "benchmark_tasks" / t) for t in TASKS),
                "--granularity=micro,hybrid",
                "--granularity-agent=local",
                f"--granularity-max-steps={args.steps}",
                f"--granularity-report={report}",
                "-n",
                "2",
                "-p",
                "no:cacheprovider",
                "-q",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        wall = time.monotonic() - started
        problems = [] if pytest.returncode in (0, 1) else [f"pytest exited {pytest.returncode}"]
        records = report.with_suffix(".jsonl")
        runs = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
        summary = json.loads(report.read_text()) if report.exists() else {}
    errors = [r for r in runs if r["outcome"] == "error"]
    problems += [f"{r['task']}[{r['policy']}]: infrastructure error: {r['error']}" for r in errors]
    if len(runs) != 2 * len(TASKS):
        problems.append(f"{len(runs)} runs reported, not {2 * len(TASKS)}")
    if not summary.get("model_servers"):
        problems.append("the report names no model server")
    left = sorted(running(SERVER) - before)
    if left:
        problems.append(f"model servers still running: {left}")
    for problem in problems:
        print(f"local model smoke: {problem}", file=sys.stderr)
    if problems:
        print(pytest.stdout[-3000:], pytest.stderr[-2000:], file=sys.stderr)
        return 1
    calls = sum(len(r["model_calls"]) for r in runs)
    print(
        f"local model smoke: {len(runs)} runs, {calls} model calls, no errors, no server left, {wall:.0f} s; "
        f"server: {', '.join(summary['model_servers'])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
