"""How well concurrent runs overlap their waits on the model.

A stub server plays the reference agent and waits DELAY seconds before every reply; the 80
tasks run with the micro policy under ``pytest -n WORKERS``. With perfect overlap the session
takes (replies x DELAY) / WORKERS; the ratio wall / that ideal says how close it comes (1.0 is
perfect; test and verifier runs on the machine's cores come on top).

    PYTHONPATH=$PWD python scripts/concurrency_benchmark.py [--workers 8] [--delay 1.0]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from stubrun import benchmark_tasks, openai_args, run_pytest

from pytest_granularity.agents.stub_server import ChatServer, ReferencePlayer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--policy", default="micro")
    args = parser.parse_args()
    player = ReferencePlayer(benchmark_tasks(), delay=args.delay)
    with tempfile.TemporaryDirectory() as scratch, ChatServer(player) as server:
        wall = run_pytest(
            Path(scratch) / "out.json",
            f"--granularity={args.policy}",
            "-n",
            str(args.workers),
            *openai_args(base_url=server.base_url),
        )
    replies = len(server.requests)
    ideal = replies * args.delay / args.workers
    print(
        f"{replies} replies x {args.delay:g} s / {args.workers} workers = {ideal:.1f} s ideal; "
        f"wall {wall:.1f} s; ratio {wall / ideal:.2f}"
    )


if __name__ == "__main__":
    main()
