"""MCP export: the macros as MCP tool definitions that keep MCP's rules."""

from __future__ import annotations

import json

from pytest_granularity.cli import main
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mcp.export import macro_tool, mcp_problems


def test_export_mcp_follows_the_mcp_rules(capsys):
    assert main(["export-mcp"]) == 0
    tools = json.loads(capsys.readouterr().out)["tools"]
    assert [t["name"] for t in tools] == ["move_module", "replace_and_verify", "summarize_module"]
    for tool in tools:
        assert not mcp_problems(tool)
        assert tool["inputSchema"]["type"] == "object"
        assert tool["annotations"]["readOnlyHint"] is False and tool["annotations"]["openWorldHint"] is False
    by_name = {t["name"]: t for t in tools}
    assert by_name["move_module"]["annotations"]["destructiveHint"] is True


def test_mcp_rules_catch_a_bad_tool():
    macro = MacroRegistry.load().get("replace_and_verify")
    tool = macro_tool(macro)
    assert mcp_problems({**tool, "name": "bad name!"}) == [
        "name 'bad name!' must be 1-128 characters of A-Z, a-z, 0-9, _, . and -"
    ]
