from __future__ import annotations

import pytest

from pytest_granularity.agents import setup_for
from pytest_granularity.agents.reference import ReferenceAgent, _edits, _parse_read
from pytest_granularity.core.tools import MICRO_TOOLS, call_tool
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process.tool_context import ToolContext
from pytest_granularity.run.executor import Limits, execute
from pytest_granularity.run.policies import FIXED_POLICIES

CASES = [
    ("a\nb\nc\n", "a\nB\nc\n"),
    ("x = 1\nx = 1\nx = 2\n", "x = 1\nx = 3\nx = 2\n"),
    ("one\n", "zero\none\ntwo\n"),
    ("keep\ndrop\nkeep\n", "keep\nkeep\n"),
    ("def f():\n    return 1\n\n\ndef g():\n    return 1\n", "def f():\n    return 2\n\n\ndef g():\n    return 1\n"),
]


@pytest.mark.parametrize(("current", "wanted"), CASES)
def test_edits_reach_the_target_and_are_unique_when_made(current, wanted):
    text = current
    for old, new in _edits(current, wanted):
        assert text.count(old) == 1
        text = text.replace(old, new, 1)
    assert text == wanted


def test_parse_read_inverts_read_file(fix_add):
    with Workspace.for_task(fix_add) as ws:
        obs = call_tool(MICRO_TOOLS["read_file"], ToolContext(ws), {"path": "calc/ops.py"})
        assert _parse_read(obs.text) == (ws.root / "calc/ops.py").read_text()


def test_micro_script_reads_before_it_edits_and_ends_green(fix_add):
    with Workspace.for_task(fix_add) as ws:
        agent = ReferenceAgent(setup_for(ReferenceAgent, fix_add, ws.initial))
        execution = execute(fix_add, FIXED_POLICIES["micro"], agent, ToolContext(ws), MacroRegistry([]), Limits(20))
        calls = [c.name for m in execution.transcript.messages for c in m.tool_calls]
        assert calls == ["list_files", "search", "read_file", "edit_file", "run_tests", "finish"]
        assert execution.steps == 5
        assert ws.changes().modified == ("calc/ops.py",)
        assert b"SCALE = 1" in (ws.root / "calc/ops.py").read_bytes()


def test_step_limit_stops_a_runaway_agent(fix_add):
    class Looping:
        def next_call(self, messages, tools):
            from pytest_granularity.core.transcript import ToolCall

            return ToolCall("list_files")

    with Workspace.for_task(fix_add) as ws:
        execution = execute(fix_add, FIXED_POLICIES["micro"], Looping(), ToolContext(ws), MacroRegistry([]), Limits(3))
    assert execution.stop_reason == "step_limit" and execution.steps == 3


def test_same_inputs_same_tokens(fix_add):
    def tokens():
        with Workspace.for_task(fix_add) as ws:
            return execute(
                fix_add,
                FIXED_POLICIES["micro"],
                ReferenceAgent(setup_for(ReferenceAgent, fix_add, ws.initial)),
                ToolContext(ws),
                MacroRegistry([]),
                Limits(20),
            ).transcript.tokens

    assert tokens() == tokens()
