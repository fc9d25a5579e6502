"""MCP export: ``start_task``, the micro tools and the macros as MCP tool definitions, and MCP's rules for them.

Plain dictionaries in MCP's shape (``name``, ``description``, ``inputSchema``, ``annotations``),
so this module needs no SDK. A micro tool's annotations say what it does to the workspace, as a
macro's follow from the side effects its contract declares. ``granularity export-mcp`` and the
MCP server's tool list both come from here, so what is exported is what is served.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.tools import FINISH, Tool
from ..macros import Macro
from ..macros.contract import SIDE_EFFECT_KINDS

START_TASK = "start_task"
READ_ONLY = frozenset({"list_files", "read_file", "search", "show_diff", FINISH})
DESTRUCTIVE = frozenset({"edit_file", "delete_file"})
MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")

START_TASK_TOOL: dict[str, Any] = {
    "name": START_TASK,
    "description": (
        "Start a task: call this first, with the user's request. The server routes the task to micro tools "
        "(read, search, edit, run tests) or to macro skills (one call does a whole routine) and then offers "
        "only those tools and finish; it says which and why. After a macro fails, only micro tools are offered. "
        "Call finish when the task is done."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {"prompt": {"type": "string", "minLength": 1, "description": "The task, in the user's words."}},
        "required": ["prompt"],
        "additionalProperties": False,
    },
    "annotations": {
        "title": "start task",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    },
}


def micro_tool(tool: Tool) -> dict[str, Any]:
    """A micro tool as an MCP tool definition."""
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.parameters,
        "annotations": {
            "title": tool.name.replace("_", " "),
            "readOnlyHint": tool.name in READ_ONLY,
            "destructiveHint": tool.name in DESTRUCTIVE,
            "idempotentHint": tool.name in READ_ONLY - {FINISH},
            "openWorldHint": False,
        },
    }


def macro_tool(macro: Macro) -> dict[str, Any]:
    """The macro as an MCP tool definition; annotations follow from its declared side effects."""
    effects = macro.contract.get("side_effects", {})
    writes = any(effects.get(kind) for kind in SIDE_EFFECT_KINDS)
    return {
        "name": macro.name,
        "description": f"{macro.contract['description'].strip()} When: {macro.contract['trigger_hint'].strip()}",
        "inputSchema": macro.parameters,
        "annotations": {
            "title": macro.name.replace("_", " "),
            "readOnlyHint": not writes,
            "destructiveHint": bool(effects.get("modify") or effects.get("delete")),
            "idempotentHint": not writes,
            "openWorldHint": False,
        },
    }


def mcp_problems(tool: dict[str, Any]) -> list[str]:
    """What breaks the MCP tool rules (name characters and length, an object input schema)."""
    problems = []
    if not MCP_NAME.match(tool["name"]):
        problems.append(f"name {tool['name']!r} must be 1-128 characters of A-Z, a-z, 0-9, _, . and -")
    if tool["inputSchema"].get("type") != "object":
        problems.append("inputSchema must have type 'object' at its root")
    if not tool["description"]:
        problems.append("description is empty")
    return problems
