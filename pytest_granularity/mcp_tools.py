"""MCP tool definitions for ``start_task`` and the micro tools (a macro's comes from ``contracts.mcp_tool``).

Plain dictionaries in MCP's shape (``name``, ``description``, ``inputSchema``, ``annotations``),
so this module needs no SDK. A micro tool's annotations say what it does to the workspace, as a
macro's follow from the side effects its contract declares.
"""

from __future__ import annotations

from typing import Any

from .tools import FINISH, Tool

START_TASK = "start_task"
READ_ONLY = frozenset({"list_files", "read_file", "search", "show_diff", FINISH})
DESTRUCTIVE = frozenset({"edit_file", "delete_file"})

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
