"""The reference agent in process and over HTTP must give the same runs, on every task and policy.

Runs the benchmark twice: with the in-process reference agent, and with the openai agent
against a stub server that plays the reference agent's decisions (SDK, HTTP, executor,
verifier). Compares success, steps, local tokens and the rest of each run's record, and
prints the runs that differ (none, when all is well).

    PYTHONPATH=$PWD python scripts/compare_over_http.py [--policies all] [-n 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from stubrun import benchmark_tasks, openai_args, run_pytest

from pytest_granularity.agents.stub_server import ChatServer, ReferencePlayer

COMPARED = (
    "outcome",
    "steps",
    "tool_calls",
    "macro_calls",
    "failure_class",
    "degraded",
    "transitions",
    "created",
    "modified",
    "deleted",
)


def records(path: Path) -> dict[tuple[str, str, str], dict]:
    rows = (json.loads(line) for line in path.read_text().splitlines())
    return {(r["task"], r["policy"], r["fault"]): r for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policies", default="all")
    parser.add_argument("-n", default="2", help="pytest-xdist workers")
    args = parser.parse_args()
    common = [f"--granularity={args.policies}", "-n", args.n, "--dist", "loadfile"]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        in_process = run_pytest(root / "inproc.json", *common)
        with ChatServer(ReferencePlayer(benchmark_tasks())) as server:
            over_http = run_pytest(root / "http.json", *common, *openai_args(base_url=server.base_url))
        local, remote = records(root / "inproc.jsonl"), records(root / "http.jsonl")
    differ = sorted(
        key
        for key in local.keys() | remote.keys()
        if key not in local
        or key not in remote
        or any(local[key][f] != remote[key][f] for f in COMPARED)
        or local[key]["tokens"] != remote[key]["local_tokens"]
    )
    for key in differ:
        print("differs:", *key)
    print(
        f"{len(local)} runs in process ({in_process:.0f} s), {len(remote)} over HTTP ({over_http:.0f} s); "
        f"{len(differ)} differ"
    )
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
