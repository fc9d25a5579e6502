"""Record a model run against a local server, replay it with the server gone, compare.

The stub server plays the reference agent. The live session records every response into a
cassette; the replay session runs with no server at all. The script prints both wall times and
whether the two reports are identical (macro wall-clock latencies aside, which differ between
any two sessions) and exits non-zero when they are not.

    PYTHONPATH=$PWD python scripts/record_replay.py [--policy hybrid] [-n 2]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from stubrun import benchmark_tasks, openai_args, run_pytest

from pytest_granularity.agents.stub_server import ChatServer, ReferencePlayer

LATENCY = re.compile(r'"(seconds|mean_seconds|p95_seconds)": [0-9.e-]+')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="hybrid")
    parser.add_argument("-n", default="2", help="pytest-xdist workers")
    args = parser.parse_args()
    common = [f"--granularity={args.policy}", "-n", args.n, "--dist", "loadfile"]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        cassette = f"--granularity-model-cache={root / 'cassette'}"
        with ChatServer(ReferencePlayer(benchmark_tasks())) as server:
            live = run_pytest(
                root / "live.json",
                *common,
                *openai_args(base_url=server.base_url),
                cassette,
                "--granularity-model-cache-mode=record",
            )
        replay = run_pytest(
            root / "replay.json", *common, *openai_args(), cassette, "--granularity-model-cache-mode=replay"
        )
        same = all(
            LATENCY.sub("", (root / f"live{suffix}").read_text())
            == LATENCY.sub("", (root / f"replay{suffix}").read_text())
            for suffix in (".json", ".jsonl")
        )
        recordings = len(list((root / "cassette").iterdir()))
    print(
        f"live (recording {recordings} responses): {live:.1f} s; "
        f"replay, server gone: {replay:.1f} s; reports identical: {same}"
    )
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
