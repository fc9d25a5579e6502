"""Strict function tools for servers that hold a call to its schema (``--granularity-strict-tools=on``)."""

from __future__ import annotations

import pytest
from model_stub import Script, calls, settings

from pytest_granularity.agents.chat import Sampling
from pytest_granularity.agents.openai_client import Endpoint, OpenAISender
from pytest_granularity.agents.strict_tools import KEPT, strict_tool, without_nulls
from pytest_granularity.agents.stub_server import ChatServer
from pytest_granularity.core.tools import MICRO_TOOLS
from pytest_granularity.core.transcript import ToolCall
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.plugin.model_plugin import OpenAIAgentFactory
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import run_task


def _qualifies(schema: dict) -> None:
    """What the API checks of a strict schema: every object closed, every property required, known keywords."""
    assert set(schema) <= KEPT, set(schema) - KEPT
    if schema.get("type") == "object":
        assert schema["additionalProperties"] is False
        assert schema["required"] == list(schema["properties"])
    for child in [*schema.get("properties", {}).values(), *schema.get("anyOf", []), schema.get("items", {})]:
        if child:
            _qualifies(child)


def _tools() -> list[dict]:
    return [t.schema() for t in MICRO_TOOLS.values()] + MacroRegistry.load().tool_schemas()


@pytest.mark.parametrize("tool", _tools(), ids=lambda t: t["function"]["name"])
def test_every_tool_has_a_strict_form_the_api_accepts(tool):
    strict = strict_tool(tool)
    assert strict["function"]["strict"] is True
    _qualifies(strict["function"]["parameters"])
    assert tool["function"].get("strict") is None, "the tool itself is left as it was"


def test_an_optional_argument_becomes_nullable_and_a_null_reads_as_not_given():
    (read,) = [t.schema() for name, t in MICRO_TOOLS.items() if name == "read_file"]
    properties = strict_tool(read)["function"]["parameters"]["properties"]
    assert properties["start_line"]["anyOf"][-1] == {"type": "null"}
    call = ToolCall("read_file", {"path": "a.py", "start_line": None}, "c1")
    assert without_nulls(call, [read]).arguments == {"path": "a.py"}
    required_null = ToolCall("read_file", {"path": None}, "c2")
    assert without_nulls(required_null, [read]) is required_null, "a required argument's null is the tool's to refuse"


def test_constrained_suggestions_have_no_strict_form_and_go_as_they_are():
    tool = {"type": "function", "function": {"name": "m", "parameters": {"type": "object", "enum": [{"a": 1}]}}}
    assert strict_tool(tool) is tool


def test_a_strict_session_sends_strict_tools_and_runs_calls_that_leave_arguments_null(fix_add):
    answers = [
        calls(("read_file", {"path": "calc/ops.py", "start_line": None, "end_line": None})),
        calls(("edit_file", {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"})),
        calls(("finish", {"summary": None})),
    ]
    with ChatServer(Script(answers)) as server:
        sender = OpenAISender(Endpoint(server.base_url, "GRANULARITY_TEST_KEY", timeout=10, max_retries=0))
        agent = OpenAIAgentFactory(Sampling("stub-model", temperature=0.0, strict_tools=True), sender, None)
        result = run_task(fix_add, FIXED_POLICIES["micro"], "none", settings(agent))
    assert all(t["function"]["strict"] is True for t in server.requests[0]["tools"])
    assert result.success and result.steps == 2
    assert "SCALE = 2" in result.transcript[3]["content"], "the whole file was read: the nulls were not passed on"
