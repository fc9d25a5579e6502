"""The agent protocol, and agents by name.

The executor drives any object with ``next_call``: given the messages so far and the tools
allowed now, return the next tool call. The deterministic reference agent and a real-model
adapter are interchangeable behind it, so tokens are counted the same way for both.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence

from ..tasks import Task
from ..transcript import Message, ToolCall


class Agent(Protocol):
    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolCall: ...


AgentFactory = Callable[[Task, Mapping[str, bytes], int], Agent]
"""Builds an agent for one run, given the task, the initial workspace files and the run's seed
(``--granularity-seed`` plus the epoch, so repeated runs of a nondeterministic agent differ)."""


def builtin_agents() -> dict[str, AgentFactory]:
    from .reference import ReferenceAgent

    return {"reference": ReferenceAgent}
