"""The host lane of ``.ci/run``: a real agent host (opencode) as the agent, recorded live and replayed.

opencode (installed from npm into the virtualenv by ``.ci/run``) runs 2 tasks x micro and hybrid
with ``--granularity-agent=host:opencode``, its model the bundled SmolLM2 server behind the
metering proxy, our relay MCP server its only tool source. The session is recorded, the model
server stopped, and the same session replayed from the recordings. Success is not asserted (the
model is tiny); what is asserted is what the harness guarantees:

- every run reached a verdict or a classified ending, none is an infrastructure error;
- the host offered its model our tools and no tool of its own (every recorded request's tools are
  ``granularity_*``, the run's mode's tools), and its tool calls reached the run (counted);
- tokens were metered: each run's provider tokens equal the usage fields of the recorded replies
  its model requests named, and are not zero;
- every model request was recorded, and the replay (no model server) reproduces every run's
  outcome, steps, tokens, transitions and calls, each request answered from a recording;
- no host, relay or model server process outlived the session.

A failed lane keeps its folder (recordings, reports, each session's pytest output) and names it.

    python scripts/host_smoke.py [--steps 2] [--host-timeout 600] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_model_smoke import running as local_model_running

from pytest_granularity.agents.local_model import DEFAULT_MODEL, LocalServer, LocalSettings, model_file

REPO = Path(__file__).resolve().parent.parent
TASKS = ("textkit-slug-length-80", "ledgerflow-fix-gbp-rate")
POLICIES = ("micro", "hybrid")
MARK = "GRANULARITY_HOST_LANE"
"""Set to the lane's folder for everything the lane starts, and inherited down to the hosts, their relays and
the model server: the check for processes left behind counts this lane's, not another session's on a shared
machine (every developer's hosts run from the same environment)."""
PROCESSES = ("opencode", "pytest_granularity.mcp.relay", "pytest_granularity.agents.llama_server")
TAIL = 3000
"""Characters of each session's output printed after a failure (the whole is kept in the lane's folder)."""
COMPARED = ("outcome", "mode", "steps", "tokens", "prompt_tokens", "completion_tokens", "transitions", "stop_reason")


def running(lane: Path) -> dict[int, str]:
    """The host, relay and model server processes that ``lane`` started, alive now, and their command lines."""
    mark = f"{MARK}={lane}"
    return {
        pid: " ".join(_entries(pid, "cmdline"))
        for pid in local_model_running(*PROCESSES)
        if mark in _entries(pid, "environ")
    }


def _entries(pid: int, name: str) -> list[str]:
    """A process's ``/proc`` list (its arguments, its environment); empty once it has gone."""
    try:
        data = (Path("/proc") / str(pid) / name).read_bytes()
    except OSError:
        return []
    return data.decode("utf-8", "replace").split("\0")[:-1]


@dataclass(frozen=True)
class Session:
    """One pytest session of the lane: its run records, wall time, and output (also kept beside its report)."""

    runs: list[dict[str, Any]]
    wall: float
    output: str


def session(report: Path, options: list[str], args: argparse.Namespace) -> Session:
    """One pytest session over the tasks and policies."""
    started = time.monotonic()
    pytest = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *(str(REPO / "benchmark_tasks" / t) for t in TASKS),
            f"--granularity={','.join(POLICIES)}",
            "--granularity-agent=host:opencode",
            f"--granularity-model={DEFAULT_MODEL}",
            f"--granularity-max-steps={args.steps}",
            f"--granularity-host-timeout={args.host_timeout}",
            f"--granularity-request-timeout={args.host_timeout}",
            f"--granularity-report={report}",
            *options,
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
    output = pytest.stdout + pytest.stderr
    report.with_suffix(".out").write_text(output, encoding="utf-8")
    records = report.with_suffix(".jsonl")
    runs = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
    return Session(sorted(runs, key=lambda r: (r["task"], r["policy"])), wall, output)


def wall(run: dict[str, Any]) -> float:
    """A run's wall time: its phases (``tests`` overlaps ``run_tests`` and the verifier)."""
    return sum(seconds for phase, seconds in run["phases"].items() if phase != "tests")


def requests(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for call in run["model_calls"] for r in call["request"]["model_requests"]]


def host_calls(run: dict[str, Any]) -> list[str]:
    return [
        c["function"]["name"]
        for call in run["model_calls"]
        for c in call["response"]["choices"][0]["message"]["tool_calls"]
    ]


def check(live: list[dict[str, Any]], replayed: list[dict[str, Any]], folder: Path) -> list[str]:
    problems = []
    if len(live) != len(TASKS) * len(POLICIES):
        problems.append(f"{len(live)} live runs reported, not {len(TASKS) * len(POLICIES)}")
    recordings = {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}
    for run in live:
        name = f"{run['task']}[{run['policy']}]"
        if run["outcome"] == "error":
            problems.append(f"{name}: an error: {run['error']}")
        asked = requests(run)
        missing = [r["key"] for r in asked if r["key"] not in recordings]
        if not asked or missing:
            problems.append(f"{name}: {len(asked)} model requests, not recorded: {missing}")
            continue
        bodies = [recordings[r["key"]] for r in asked]
        usage = [json.loads(b["response"]["body"])["usage"] for b in bodies]
        prompt, completion = sum(u["prompt_tokens"] for u in usage), sum(u["completion_tokens"] for u in usage)
        if (run["provider_prompt_tokens"], run["provider_completion_tokens"]) != (prompt, completion) or not prompt:
            problems.append(
                f"{name}: tokens {run['provider_prompt_tokens']}+{run['provider_completion_tokens']}, "
                f"the recorded replies say {prompt}+{completion}"
            )
        offered = {t["function"]["name"] for b in bodies for t in b["request"]["body"].get("tools") or []}
        if not offered or any(not t.startswith("granularity_") for t in offered):
            problems.append(f"{name}: the host offered its model {sorted(offered)}")
    for was, again in zip(live, replayed, strict=False):
        name = f"{was['task']}[{was['policy']}]"
        differ = [f for f in COMPARED if was[f] != again[f]] + (
            ["calls"] if host_calls(was) != host_calls(again) else []
        )
        sources = {r["source"] for r in requests(again)}
        if differ or sources != {"recording"}:
            problems.append(
                f"{name}: the replay differs in {differ}; its requests were answered by {sorted(sources)}"
                f"{'; ' + again['error'] if again['error'] else ''}"
            )
    if len(replayed) != len(live):
        problems.append(f"{len(replayed)} replayed runs, not {len(live)}")
    return problems


def lane(scratch: Path, args: argparse.Namespace) -> tuple[Session, Session]:
    """The live session against the model server, then its replay from the recordings in ``scratch``."""
    folder = scratch / "recordings"
    settings = LocalSettings(model_file(DEFAULT_MODEL), DEFAULT_MODEL, threads=2, timeout=args.host_timeout)
    server = LocalServer(settings)
    try:
        record = [
            f"--granularity-base-url={server.url()}",
            f"--granularity-model-cache={folder}",
            "--granularity-model-cache-mode=record",
        ]
        live = session(scratch / "live.json", record, args)
    finally:
        server.stop()
    replay = [f"--granularity-model-cache={folder}", "--granularity-model-cache-mode=replay"]
    return live, session(scratch / "replay.json", replay, args)


def settle(scratch: Path, problems: list[str]) -> None:
    """Remove the lane's folder after a pass. After a failure keep it and say where: a replay miss names a
    recording and a key, and only the recordings there show the request behind each."""
    if problems:
        problems.append(f"the lane's recordings, reports and pytest output are kept in {scratch}")
    else:
        shutil.rmtree(scratch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument(
        "--host-timeout",
        type=float,
        default=600.0,
        help="the host's own time per run (its model's not counted), and the limit on one model request",
    )
    parser.add_argument("--keep", type=Path, help="copy the recordings and reports here")
    args = parser.parse_args()
    if shutil.which("opencode") is None:
        print(
            "host smoke: opencode is not on PATH (npm install -g --prefix .venv opencode-ai@1.18.33)", file=sys.stderr
        )
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="granularity-host-lane-"))
    os.environ[MARK] = str(scratch)
    try:
        live, replayed = lane(scratch, args)
    except BaseException:
        print(f"host smoke: the lane's recordings, reports and pytest output are kept in {scratch}", file=sys.stderr)
        raise
    problems = check(live.runs, replayed.runs, scratch / "recordings")
    if args.keep:
        shutil.copytree(scratch, args.keep, dirs_exist_ok=True)
    left = running(scratch)
    if left:
        problems.append(f"processes outlived the session: {left}")
    settle(scratch, problems)
    for run in live.runs:
        print(
            f"host smoke: {run['task']}[{run['policy']}] {run['outcome']} ({run['stop_reason']}), "
            f"{len(requests(run))} model requests, {run['provider_prompt_tokens']}+{run['provider_completion_tokens']} "
            f"tokens, host calls {host_calls(run)}, {wall(run):.0f} s{'; ' + run['error'] if run['error'] else ''}"
        )
    if problems:
        print(live.output[-TAIL:], replayed.output[-TAIL:], file=sys.stderr)
        for problem in problems:
            print(f"host smoke: {problem}", file=sys.stderr)
        return 1
    calls = sum(len(host_calls(r)) for r in live.runs)
    print(
        f"host smoke: {len(live.runs)} runs recorded in {live.wall:.0f} s and replayed in {replayed.wall:.0f} s; "
        f"{calls} tool calls by the host; no process left"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
