"""The MCP server, driven by the SDK's own clients: in memory, and once as a real stdio subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
from conftest import REPO, connected, needs_bwrap  # noqa: E402

from pytest_granularity.cli import main  # noqa: E402
from pytest_granularity.core.audit import AuditLog, audit_records  # noqa: E402
from pytest_granularity.core.failures import InjectedFault  # noqa: E402
from pytest_granularity.core.tools import MICRO_TOOLS  # noqa: E402
from pytest_granularity.core.workspace import Workspace, read_tree  # noqa: E402
from pytest_granularity.macros import MacroRegistry  # noqa: E402
from pytest_granularity.mcp.export import macro_tool  # noqa: E402
from pytest_granularity.mcp.server import _Listings, build_server  # noqa: E402
from pytest_granularity.mcp.tool_session import ServeSettings, ToolSession, served_root  # noqa: E402
from pytest_granularity.process import sandbox as sandbox_module  # noqa: E402
from pytest_granularity.process.sandbox import BWRAP  # noqa: E402
from pytest_granularity.routing.explain import explain_routing  # noqa: E402
from pytest_granularity.routing.features import compute  # noqa: E402
from pytest_granularity.routing.routers import heuristic_policy  # noqa: E402
from pytest_granularity.run.policies import FIXED_POLICIES  # noqa: E402

MACROS = MacroRegistry.load()
FIX = {"files": ["calc/ops.py"], "old": "SCALE = 2", "new": "SCALE = 1"}
MISFIT = {**FIX, "old": "SCALE = 3"}
EDIT = {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"}


def early_fault(point, macro, args, root):
    if point == "early":
        raise InjectedFault(f"injected early fault in {macro}")


@pytest.fixture
def repo(fix_add, tmp_path) -> Path:
    """A repository to serve in place: the fix-add task's starting files, in this test's own folder."""
    return Workspace.for_task(fix_add, parent=tmp_path).root


def session(repo: Path, tmp_path: Path, policy=None, fault=None, **options) -> ToolSession:
    settings = ServeSettings(policy or heuristic_policy(), MACROS, **({"fault": fault} if fault else {}), **options)
    return ToolSession(repo, settings, AuditLog(tmp_path / "audit.jsonl", {"session": "mcp-test"}), "mcp-test")


def names(listing) -> list[str]:
    return [t.name for t in listing.tools]


def events(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]


async def call(client, name, args):
    result = await client.call_tool(name, args)
    return result.is_error, result.content[0].text


def test_start_task_routes_with_the_policy_and_offers_that_modes_tools(repo, tmp_path, fix_add):
    served = session(repo, tmp_path)

    async def drive():
        async with mcp.Client(build_server(served)) as client:
            before = names(await client.list_tools())
            reply = await call(client, "start_task", {"prompt": fix_add.prompt})
            return before, reply, (await client.list_tools()).tools

    before, (is_error, text), tools = anyio.run(drive)
    assert before == ["start_task"] and not is_error
    assert text.startswith("task mcp-test-1 starts in macro mode (policy heuristic).")
    assert explain_routing(compute(fix_add.prompt, read_tree(repo), MACROS)) in text
    assert [t.name for t in tools] == ["move_module", "replace_and_verify", "summarize_module", "finish"]
    exported = macro_tool(MACROS.get("replace_and_verify"))
    replace = next(t for t in tools if t.name == "replace_and_verify")
    assert replace.input_schema == exported["inputSchema"]
    assert replace.annotations.destructive_hint is True and replace.annotations.read_only_hint is False


def test_the_micro_policy_offers_micro_tools_that_validate_arguments_and_refuse_escapes(repo, tmp_path, fix_add):
    served = session(repo, tmp_path, FIXED_POLICIES["micro"])

    async def drive():
        async with mcp.Client(build_server(served)) as client:
            await call(client, "start_task", {"prompt": fix_add.prompt})
            tools = (await client.list_tools()).tools
            return (
                tools,
                await call(client, "read_file", {}),
                await call(client, "read_file", {"path": "../outside.txt"}),
            )

    tools, missing, escape = anyio.run(drive)
    assert [t.name for t in tools] == list(MICRO_TOOLS)
    assert next(t for t in tools if t.name == "read_file").annotations.read_only_hint is True
    assert missing == (True, "error: invalid arguments for read_file (<root>): 'path' is a required property")
    assert escape == (True, "error: path '../outside.txt' uses '..' and would leave the workspace")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_early_fault_degrades_to_micro_tools_one_way_and_says_so(repo, tmp_path, fix_add, mode):
    served = session(repo, tmp_path, FIXED_POLICIES["hybrid"], early_fault)
    notices = []

    async def note(message):
        notices.append(getattr(message, "method", ""))

    async def drive():
        async with mcp.Client(build_server(served), mode=mode, message_handler=note) as client:
            await call(client, "start_task", {"prompt": fix_add.prompt})
            if client.protocol_version == "2026-07-28":
                async with client.listen(tools_list_changed=True) as events_:
                    failed = await call(client, "replace_and_verify", FIX)
                    with anyio.fail_after(5):
                        notices.append(type(await events_.__anext__()).__name__)
            else:
                failed = await call(client, "replace_and_verify", FIX)
            after = names(await client.list_tools())
            return failed, after, await call(client, "replace_and_verify", FIX), await call(client, "edit_file", EDIT)

    (is_error, text), after, again, edited = anyio.run(drive)
    assert is_error and text.startswith(
        "replace_and_verify failed (executor_exception): InjectedFault: injected early fault"
    )
    assert "Macro skills are no longer available" in text and text.endswith(
        "tools offered now: " + ", ".join(MICRO_TOOLS)
    )
    assert ("ToolsListChanged" if mode == "auto" else "notifications/tools/list_changed") in notices
    assert after == list(MICRO_TOOLS)
    assert again[0] and again[1].startswith("error: 'replace_and_verify' is not offered now (micro)")
    assert edited == (False, "edited calc/ops.py")
    calls = [e for e in events(tmp_path) if e["event"] == "call"]
    assert calls[0]["transitions"] == [
        "macro --macro_failed(replace_and_verify)--> classify",
        "classify --failure_classified(executor_exception)--> decide",
        "decide --degrade--> degrade",
        "degrade --switch_to_micro--> micro",
    ]
    assert calls[0]["state"] == "micro" and calls[0]["offered"] == list(MICRO_TOOLS)


def relisting_session(served: ToolSession, fix_add, relist: bool, seconds: float) -> list:
    """What a client saw, in order: each tool listing it made on a change, and each call's answer."""
    seen: list = []

    async def drive():
        async with anyio.create_task_group() as group:

            async def listing():
                seen.append(("listed", names(await client.list_tools())))

            async def note(message):
                if relist and getattr(message, "method", "") == "notifications/tools/list_changed":
                    group.start_soon(listing)

            server = build_server(served, relist_seconds=seconds)
            async with mcp.Client(server, mode="legacy", message_handler=note) as client:
                with anyio.fail_after(10):
                    seen.append(("answered", (await call(client, "start_task", {"prompt": fix_add.prompt}))[0]))
                    seen.append(("answered", (await call(client, "replace_and_verify", FIX))[0]))

    anyio.run(drive)
    return seen


def test_a_call_that_changes_the_tools_is_answered_after_the_clients_new_listing(repo, tmp_path, fix_add):
    seen = relisting_session(session(repo, tmp_path, FIXED_POLICIES["hybrid"], early_fault), fix_add, True, 5.0)
    assert [kind for kind, _ in seen] == ["listed", "answered", "listed", "answered"]
    assert seen[2] == ("listed", list(MICRO_TOOLS)) and seen[3] == ("answered", True)


def test_a_client_that_does_not_list_again_is_answered(repo, tmp_path, fix_add):
    seen = relisting_session(session(repo, tmp_path, FIXED_POLICIES["hybrid"], early_fault), fix_add, False, 0.2)
    assert seen == [("answered", False), ("answered", True)]


def test_a_client_that_let_the_wait_pass_without_listing_is_not_waited_for_again():
    listings, answered = _Listings(0.05), _Listings(5.0)
    answered.answered()
    anyio.run(listings.after, 0)
    anyio.run(answered.after, 0)
    assert (listings.seconds, answered.seconds) == (0.0, 5.0)


def test_a_tool_that_is_not_offered_is_refused_and_audited(repo, tmp_path, fix_add):
    served = session(repo, tmp_path)

    async def drive():
        async with mcp.Client(build_server(served)) as client:
            early = await call(client, "edit_file", EDIT)
            await call(client, "start_task", {"prompt": fix_add.prompt})
            return early, await call(client, "edit_file", EDIT), await call(client, "start_task", {"prompt": "again"})

    early, in_macro_mode, restart = anyio.run(drive)
    assert early == (True, "error: 'edit_file' is not offered now (no task); the tools offered now are: start_task")
    assert in_macro_mode[0] and in_macro_mode[1].startswith("error: 'edit_file' is not offered now (macro)")
    assert restart[0] and "not offered now (macro)" in restart[1]
    assert "SCALE = 2" in (repo / "calc" / "ops.py").read_text()
    refused = [e for e in events(tmp_path) if e["event"] == "refused"]
    assert [(e["task"], e["tool"]) for e in refused] == [
        (None, "edit_file"),
        ("mcp-test-1", "edit_file"),
        ("mcp-test-1", "start_task"),
    ]


def test_the_macro_policy_ends_the_task_at_a_failure_and_the_log_reads_back(repo, tmp_path, fix_add, capsys):
    served = session(repo, tmp_path, FIXED_POLICIES["macro"])

    async def drive():
        async with mcp.Client(build_server(served)) as client:
            await call(client, "start_task", {"prompt": fix_add.prompt})
            return await call(client, "replace_and_verify", MISFIT), names(await client.list_tools())

    (is_error, text), after = anyio.run(drive)
    served.close()
    assert (
        is_error
        and "task mcp-test-1 stopped after a precondition_mismatch failure: policy macro does not recover" in text
    )
    assert after == ["start_task"]
    (record,) = audit_records(tmp_path / "audit.jsonl")
    assert (record.outcome, record.stop_reason, record.failure_class, record.degraded) == (
        "unverified",
        "macro_failed",
        "precondition_mismatch",
        False,
    )
    assert record.transitions[-1] == "decide --stop--> verify" and record.macro_log[0].macro == "replace_and_verify"
    assert main(["report", "-v", str(tmp_path / "audit.jsonl")]) == 0
    assert "mcp-test-1  macro   none   unverified  1      " in capsys.readouterr().out


def test_closing_the_session_records_the_open_task(repo, tmp_path, fix_add):
    served = session(repo, tmp_path)
    served.call("start_task", {"prompt": fix_add.prompt})
    served.call("replace_and_verify", MISFIT)
    served.close()
    (record,) = audit_records(tmp_path / "audit.jsonl")
    assert (record.stop_reason, record.degraded, record.steps, record.mode) == ("session_closed", True, 1, "macro")


def test_start_task_arguments_are_validated(repo, tmp_path):
    reply = session(repo, tmp_path).call("start_task", {"prompt": ""})
    assert reply.is_error and reply.text == "error: invalid arguments for start_task (prompt): '' should be non-empty"


def test_a_copy_is_served_and_removed(repo):
    with served_root(repo, copy=True) as root:
        assert root != repo and read_tree(root) == read_tree(repo)
        (root / "calc" / "ops.py").write_text("changed")
    assert not root.exists() and "SCALE = 2" in (repo / "calc" / "ops.py").read_text()
    with served_root(repo, copy=False) as root:
        assert root == repo


@pytest.mark.parametrize(
    "args, message",
    [
        (["--policy", "clever"], "unknown policy 'clever'"),
        (["--policy", "learned", "--router", "missing.json"], "missing.json: cannot read the router"),
        (["--audit", "{repo}/audit.jsonl"], "is inside the served workspace"),
    ],
)
def test_serve_mcp_refuses_bad_options_with_a_clear_message(repo, capsys, args, message):
    assert main(["serve-mcp", str(repo), *(a.format(repo=repo) for a in args)]) == 2
    assert message in capsys.readouterr().err


def test_serve_mcp_with_sandbox_bwrap_where_it_cannot_run_is_a_clear_usage_error(repo, capsys, monkeypatch):
    monkeypatch.setattr(
        sandbox_module, "probe", lambda: "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    )
    assert main(["serve-mcp", str(repo), "--sandbox", "bwrap"]) == 2
    assert capsys.readouterr().err == (
        "granularity serve-mcp: --sandbox=bwrap: bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
        " (or choose auto or none)\n"
    )


@needs_bwrap
def test_the_agents_tests_run_sandboxed_when_served(repo, tmp_path, fix_add, listener):
    """The code an outside agent writes and runs over MCP is as contained as in a benchmark run."""
    served = session(repo, tmp_path, FIXED_POLICIES["micro"], sandbox=BWRAP)
    port = listener.getsockname()[1]
    reach_out = (
        f"import socket\n\ndef test_reach_out():\n    socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
    )

    async def drive():
        async with mcp.Client(build_server(served)) as client:
            await call(client, "start_task", {"prompt": fix_add.prompt})
            await call(client, "create_file", {"path": "test_reach_out.py", "content": reach_out})
            return await call(client, "run_tests", {"paths": ["test_reach_out.py"]})

    _, text = anyio.run(drive)
    assert "ConnectionRefusedError" in text and "1 failed" in text and not connected(listener)


def test_a_real_stdio_session_routes_fails_degrades_finishes_and_reads_back(repo, tmp_path, fix_add, capsys):
    audit = tmp_path / "stdio-audit.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = ["-m", "pytest_granularity.cli", "serve-mcp", str(repo), "--policy", "hybrid", "--audit", str(audit)]
    server = mcp.StdioServerParameters(command=sys.executable, args=command, env=env, cwd=str(tmp_path))

    async def drive():
        async with mcp.Client(server, mode="legacy") as client:
            started = await call(client, "start_task", {"prompt": fix_add.prompt})
            failed = await call(client, "replace_and_verify", MISFIT)
            tools = names(await client.list_tools())
            edited = await call(client, "edit_file", EDIT)
            return started, failed, tools, edited, await call(client, "finish", {"summary": "SCALE fixed"})

    started, failed, tools, edited, finished = anyio.run(drive)
    assert "starts in macro mode (policy hybrid)" in started[1]
    assert failed[0] and failed[1].startswith("replace_and_verify failed (precondition_mismatch)")
    assert tools == list(MICRO_TOOLS) and edited == (False, "edited calc/ops.py")
    assert "finished. 2 calls (1 to macros), degraded to micro tools; changed paths: calc/ops.py" in finished[1]
    assert "SCALE = 1" in (repo / "calc" / "ops.py").read_text()
    (record,) = audit_records(audit)
    assert (record.policy, record.failure_class, record.degraded, record.stop_reason) == (
        "hybrid",
        "precondition_mismatch",
        True,
        "finished",
    )
    assert record.transitions[-2:] == ["degrade --switch_to_micro--> micro", "micro --finish--> verify"]
    assert main(["report", str(audit)]) == 0
    assert "hybrid (unverified)  none   1     -        -       2.00 / 2" in capsys.readouterr().out


def test_the_circuit_breaker_holds_across_the_tasks_of_a_session(repo, tmp_path, fix_add):
    def crash(point, macro, args, root):
        if point == "early":
            raise RuntimeError("the runtime crashed")

    settings = ServeSettings(FIXED_POLICIES["hybrid"], MacroRegistry.load(breaker=2), fault=crash)
    served = ToolSession(repo, settings, AuditLog(tmp_path / "audit.jsonl", {}), "mcp-test")
    for _ in range(2):
        served.call("start_task", {"prompt": fix_add.prompt})
        assert (
            "replace_and_verify failed (executor_exception): RuntimeError"
            in served.call("replace_and_verify", FIX).text
        )
        served.call("finish", {})
    served.call("start_task", {"prompt": fix_add.prompt})
    assert served.offered() == ["move_module", "summarize_module", "finish"]
    assert served.call("replace_and_verify", FIX).text.startswith(
        "error: 'replace_and_verify' is not offered now (macro)"
    )


def test_sigterm_ends_the_server_cleanly_and_records_the_open_task(repo, tmp_path):
    audit = tmp_path / "term.jsonl"
    command = [sys.executable, "-m", "pytest_granularity.cli", "serve-mcp", str(repo), "--audit", str(audit)]
    server = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "start_task", "arguments": {"prompt": "Fix calc/ops.py"}},
        },
    ):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()
    while json.loads(server.stdout.readline()).get("id") != 2:
        pass
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=60) == 0
    server.stdin.close(), server.stdout.close(), server.stderr.close()
    (record,) = audit_records(audit)
    assert record.stop_reason == "session_closed" and record.steps == 0


def test_finishing_the_macro_phase_without_a_successful_macro_is_a_failure_the_recovery_decides(
    repo, tmp_path, fix_add
):
    hybrid = session(repo, tmp_path, FIXED_POLICIES["hybrid"])
    hybrid.call("start_task", {"prompt": fix_add.prompt})
    reply = hybrid.call("finish", {})
    assert reply.is_error and reply.tools_changed and "No macro skill was applied (precondition_mismatch)" in reply.text
    assert hybrid.offered() == list(MICRO_TOOLS) and hybrid.run.machine.log[-1] == "degrade --switch_to_micro--> micro"
    macro = session(repo, tmp_path / "macro", FIXED_POLICIES["macro"])
    macro.call("start_task", {"prompt": fix_add.prompt})
    reply = macro.call("finish", {})
    assert (
        reply.is_error and "stopped after a precondition_mismatch failure: policy macro does not recover" in reply.text
    )
    assert macro.offered() == ["start_task"]
