"""How long served calls take: start_task and read_file through the SDK's in-memory client, and
the same calls on the ToolSession directly, with the micro policy (the MCP layer's share is the difference).

    PYTHONPATH=. python scripts/mcp_latency.py [REPO] [--repeat N]

Works on a throw-away copy of REPO (default: fixtures/hookshot). Prints medians in milliseconds.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

import anyio
import mcp

from pytest_granularity.core.audit import AuditLog
from pytest_granularity.core.workspace import read_tree
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mcp.server import build_server
from pytest_granularity.mcp.tool_session import ServeSettings, ToolSession, served_root
from pytest_granularity.run.policies import FIXED_POLICIES

PROMPT = "Fix the typo in README.md: `recieve` should be `receive`."
logging.getLogger("client").setLevel(
    logging.ERROR
)  # the client warns when start_task leaves the list it validates against


def timed(function, *args):
    started = time.perf_counter()
    function(*args)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", nargs="?", type=Path, default=Path("fixtures/hookshot"))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    settings = ServeSettings(FIXED_POLICIES["micro"], MacroRegistry.load())
    with served_root(args.repo.resolve(), copy=True) as root, tempfile.TemporaryDirectory() as logs:
        files = read_tree(root)
        print(
            f"{args.repo}: {len(files)} files, {sum(map(len, files.values())) / 1e6:.2f} MB; {args.repeat} repetitions"
        )
        direct = {"start_task": [], "read_file": []}
        served = {"start_task": [], "read_file": []}
        for i in range(args.repeat):
            session = ToolSession(root, settings, AuditLog(Path(logs) / "direct.jsonl", {}), f"direct-{i}")
            direct["start_task"].append(timed(session.call, "start_task", {"prompt": PROMPT}))
            first = sorted(files)[0]
            direct["read_file"].append(timed(session.call, "read_file", {"path": first}))
            session.close()
            session = ToolSession(root, settings, AuditLog(Path(logs) / "served.jsonl", {}), f"served-{i}")
            anyio.run(_served, session, first, served)
            session.close()
    for name in direct:
        d, s = statistics.median(direct[name]), statistics.median(served[name])
        print(f"{name:<10} direct {d:8.2f} ms   through MCP {s:8.2f} ms   ratio {s / d:.2f}")


async def _served(session: ToolSession, first: str, served: dict[str, list[float]]) -> None:
    async with mcp.Client(build_server(session)) as client:
        started = time.perf_counter()
        await client.call_tool("start_task", {"prompt": PROMPT})
        served["start_task"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await client.call_tool("read_file", {"path": first})
        served["read_file"].append((time.perf_counter() - started) * 1000)


if __name__ == "__main__":
    main()
