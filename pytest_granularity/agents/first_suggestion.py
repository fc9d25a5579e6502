"""The no-model baseline: the first call the harness suggests, and nothing else.

A model's numbers mean little until they are read against what the harness alone achieves. With
suggestions on (``--granularity-suggestions``), a macro phase offers its macros in the order
retrieval ranks them, each with the calls its derivation proposes and its preconditions accept
(the ``enum`` of its parameters when constrained, their ``examples`` when listed). This agent
calls the first suggested call of the first macro that has one; once a macro succeeded, or when
none is suggested, or in a micro phase, it calls ``finish``. It reads only the tools it is
offered, never the task's answer, and spends no tokens: whatever it solves, a model gets for free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.tools import FINISH
from ..core.transcript import Message, ToolCall
from . import AgentSetup


class FirstSuggestion:
    """Calls the first suggested macro call once, then finishes."""

    def __init__(self, setup: AgentSetup) -> None:
        self.called = False

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolCall:
        suggestion = None if self.called else first_suggestion(tools)
        if suggestion is None:
            return ToolCall(FINISH, {"summary": "no suggested call left to make"})
        self.called = True
        return ToolCall(*suggestion)


def first_suggestion(tools: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The first tool's first suggested arguments: its parameters' ``enum`` or ``examples``."""
    for tool in tools:
        function = tool.get("function", {})
        parameters = function.get("parameters", {})
        calls = parameters.get("enum") or parameters.get("examples") or []
        if calls and function.get("name") != FINISH:
            return str(function["name"]), dict(calls[0])
    return None
