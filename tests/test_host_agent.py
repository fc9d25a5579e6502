"""An agent host as a run's agent: its calls go through the run's executor, its model through the proxy, and
whatever it does (crash, hang, ignore our tools, litter) ends in a classified outcome with no process left.

The host is ``tests/fake_host.py``, a real MCP client started as a host is: from a declared table, through
the relay server, with its model a stub behind the metering proxy."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, needs_bwrap

from pytest_granularity.agents.host_agent import FINISH_GRACE_SECONDS, HostAgentFactory, HostSettings
from pytest_granularity.agents.hosts import Host, Launch
from pytest_granularity.agents.stub_server import Answer, ChatServer, completion
from pytest_granularity.agents.wire_usage import CHAT
from pytest_granularity.core.result import Outcome, RunResult
from pytest_granularity.core.tasks import Task
from pytest_granularity.core.transcript import Usage
from pytest_granularity.process.sandbox import select
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import RunSettings, run_task

pytest.importorskip("mcp")

FAKE = Path(__file__).with_name("fake_host.py")
BILLED = Usage(321, 12, 0)


def _fake(mode: str, record: Path | None, outside: Path | None = None) -> Host:
    """The fake host in ``mode``; it records its processes in ``record`` (None: in its scratch folder)."""

    def files(launch: Launch) -> dict[str, str]:
        pids = record or launch.scratch / "pids.json"
        config = {
            "server": list(launch.server),
            "base_url": launch.base_url,
            "pids": str(pids),
            "outside": str(outside),
        }
        return {"fake.json": json.dumps(config)}

    return Host(
        name="fake",
        executable=sys.executable,
        wire=CHAT,
        upstream=None,
        key_variable=None,
        tools_off="it has none",
        arguments=lambda launch: [str(FAKE), mode, str(launch.scratch / "fake.json")],
        files=files,
        env=lambda launch: {},
    )


def _respond(body: dict[str, Any]) -> Answer:
    return 200, {}, completion({"content": "ok"}, BILLED)


def _run(
    task: Task, behaviour: str, tmp_path: Path, policy: str = "micro", respond: Any = _respond, **given: Any
) -> RunResult:
    """One run with the fake host; every process it recorded must be gone within a few seconds of the run's end
    (before the session would stop what is left)."""
    record = tmp_path / "pids.json"
    with ChatServer(respond) as model:
        settings = HostSettings(_fake(behaviour, record), sys.executable, "m", model.base_url, timeout=60)
        factory = HostAgentFactory(replace(settings, **given))
        result = run_task(task, FIXED_POLICIES[policy], "none", RunSettings(agent=factory, workspace_parent=tmp_path))
        pids = json.loads(record.read_text()) if record.exists() and behaviour != "litter" else []
        deadline = time.monotonic() + FINISH_GRACE_SECONDS + 5
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in pids if _alive(pid)]
        factory.close()
    assert not left, f"{behaviour}: processes {left} outlived the run"
    return result


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return status not in ("Z", "X")


def _called(result: RunResult) -> list[str]:
    return [
        call["function"]["name"]
        for entry in result.model_calls
        for call in entry["response"]["choices"][0]["message"]["tool_calls"]
    ]


def test_a_host_s_calls_are_the_run_s_steps_and_its_tokens_are_the_proxy_s_count(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "good", tmp_path)
    assert (result.outcome, result.stop_reason, result.mode) == (Outcome.FAILED, "finished", "micro")
    assert result.steps == 1 and _called(result) == ["list_files", "finish"]
    assert (result.provider_prompt_tokens, result.provider_completion_tokens) == (BILLED.prompt, BILLED.completion)
    assert result.token_source == "provider" and result.tokens == BILLED.prompt + BILLED.completion
    [request] = result.model_calls[0]["request"]["model_requests"]
    assert (request["source"], request["usage"][:2]) == ("upstream", [BILLED.prompt, BILLED.completion])
    assert "list_files" in result.model_calls[0]["response"]["choices"][0]["message"]["content"]
    assert not list(tmp_path.glob("granularity-host-*"))


def test_the_host_is_offered_the_tools_of_the_run_s_mode_and_a_stale_call_is_refused(
    fix_add: Task, tmp_path: Path
) -> None:
    result = _run(fix_add, "stale", tmp_path, policy="hybrid")
    assert result.mode == "macro" and result.degraded
    assert result.failure_class == "precondition_mismatch"
    listed = json.loads(result.model_calls[0]["response"]["choices"][0]["message"]["content"].splitlines()[0])
    assert "finish" in listed["tools"] and "list_files" not in listed["tools"]
    assert _called(result) == ["no_such_tool", "list_files", "finish"]
    refused = [m["content"] for m in result.transcript if m["role"] == "tool"][:2]
    assert [text.split(";")[0] for text in refused] == [
        "error: 'no_such_tool' is not available",
        "error: 'list_files' is not available",
    ]


def test_a_host_that_crashes_after_using_its_model_is_judged_on_what_it_left(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "crash", tmp_path)
    assert (result.outcome, result.stop_reason) == (Outcome.FAILED, "finished")
    assert "host fake exited with status 3 without calling finish" in result.transcript[-1]["content"]
    assert _called(result) == ["list_files"]


def test_a_host_that_hangs_is_stopped_at_its_time_limit_with_its_children(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "hang", tmp_path, timeout=25)
    assert (result.outcome, result.stop_reason) == (Outcome.FAILED, "finished")
    assert "did not finish within 25 s of its own time (its model's not counted)" in result.transcript[-1]["content"]
    assert len(json.loads((tmp_path / "pids.json").read_text())) == 3


def test_a_run_whose_model_was_slow_ends_in_its_replay_where_it_ended_live(fix_add: Task, tmp_path: Path) -> None:
    """A busy machine slows the model, not the host, so the time a host waits on its model is not counted
    against its limit: a recorded run stopped mid-request would end where its replay, answered at once, goes
    on (to ask what was never recorded)."""

    def slow_second(body: dict[str, Any]) -> Answer:
        if body["messages"][0]["content"] == "again":
            time.sleep(15)
        return _respond(body)

    cache = {"folder": tmp_path / "rec", "timeout": 12}
    live = _run(fix_add, "again", tmp_path, respond=slow_second, mode="record", session="a", **cache)
    replayed = _run(fix_add, "again", tmp_path, upstream=None, mode="replay", session="b", **cache)
    assert (live.outcome, live.stop_reason, _called(live)) == (Outcome.FAILED, "finished", ["list_files", "finish"])
    assert _called(replayed) == _called(live) and replayed.tokens == live.tokens == 2 * (
        BILLED.prompt + BILLED.completion
    )


def test_a_host_that_ignores_our_tools_is_judged_on_the_untouched_workspace(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "ignore", tmp_path)
    assert (result.outcome, result.steps, result.created, result.modified) == (Outcome.FAILED, 0, [], [])
    assert "exited with status 0 without calling finish" in result.transcript[-1]["content"]
    assert result.provider_prompt_tokens == BILLED.prompt


def test_a_host_that_never_reaches_its_model_is_an_infrastructure_error(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "dead", tmp_path)
    assert (result.outcome, result.stop_reason) == (Outcome.ERROR, "infrastructure")
    assert "never reached its model" in (result.error or "") and "fake host: cannot start" in (result.error or "")


def test_a_host_that_cannot_be_started_is_an_infrastructure_error(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "good", tmp_path, executable=str(tmp_path / "no-such-host"))
    assert (result.outcome, result.stop_reason) == (Outcome.ERROR, "infrastructure")
    assert "could not be started" in (result.error or "")


def test_a_replay_without_a_recording_is_an_infrastructure_error(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "good", tmp_path, upstream=None, folder=tmp_path / "empty", mode="replay")
    assert (result.outcome, result.stop_reason) == (Outcome.ERROR, "infrastructure")
    assert "no recording of this request" in (result.error or "")


def test_a_host_s_own_files_stay_in_its_scratch_folder_and_are_removed(fix_add: Task, tmp_path: Path) -> None:
    result = _run(fix_add, "litter", tmp_path)
    assert (result.created, result.modified, result.deleted) == ([], [], [])
    folders = [Path(p) for p in json.loads((tmp_path / "pids.json").read_text())]
    assert folders and all(not p.exists() for p in folders)
    assert not (Path.home() / "host-litter.txt").exists() and not Path("host-litter.txt").exists()


@needs_bwrap
def test_a_host_in_the_sandbox_cannot_write_outside_its_scratch_folder(fix_add: Task, tmp_path: Path) -> None:
    """A host process was not sandboxed: one that wrote outside its scratch folder was neither stopped nor seen."""
    outside = tmp_path / "escaped.txt"
    sandbox = select("bwrap")
    with ChatServer(_respond) as model:
        settings = HostSettings(_fake("escape", None, outside), sys.executable, "m", model.base_url, timeout=60)
        factory = HostAgentFactory(replace(settings, sandbox=sandbox))
        result = run_task(
            fix_add, FIXED_POLICIES["micro"], "none", RunSettings(agent=factory, workspace_parent=tmp_path)
        )
        factory.close()
    assert _called(result)[-1] == "finish", f"the host did not run to its end: {result.summary()}"
    assert not outside.exists(), "WROTE-OUTSIDE: the host wrote outside its scratch folder"


def test_a_recorded_host_session_replays_with_no_model(fix_add: Task, tmp_path: Path) -> None:
    recorded = _run(fix_add, "good", tmp_path, folder=tmp_path / "rec", mode="record", session="a")
    replayed = _run(fix_add, "good", tmp_path, upstream=None, folder=tmp_path / "rec", mode="replay", session="b")
    assert replayed.provider_prompt_tokens == recorded.provider_prompt_tokens == BILLED.prompt
    [request] = replayed.model_calls[0]["request"]["model_requests"]
    assert request["source"] == "recording"
    assert request["key"] == recorded.model_calls[0]["request"]["model_requests"][0]["key"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ((), "*--granularity-agent=host:opencode needs --granularity-model=NAME*"),
        (("--granularity-model=m", "--granularity-host-command=/bin/true"), "*needs --granularity-base-url=URL*"),
        (("--granularity-model=m",), "*'claude' is not on PATH; install it or give --granularity-host-command*"),
    ],
)
def test_a_host_agent_s_missing_settings_are_usage_errors(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...], message: str
) -> None:
    host = "claude" if "claude" in message else "opencode"
    monkeypatch.setenv("PATH", str(pytester.path))
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / "textkit-slug-length-80"),
        "--granularity=micro",
        f"--granularity-agent=host:{host}",
        *options,
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
