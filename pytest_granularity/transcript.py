"""A run's chat transcript in the OpenAI message format, and its token bill (DESIGN §4).

Token model, exactly: for model call *i*, prompt tokens are the system message, the schemas of
the tools allowed at that call and every message before call *i*; completion tokens are the
assistant message *i*. Each message costs ``MESSAGE_OVERHEAD`` tokens of framing plus its role
and content (an assistant message's content is its tool name and JSON arguments); each call's
prompt also pays ``REPLY_PRIMING`` tokens. Every message is tokenised once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .tokens import count_tokens

MESSAGE_OVERHEAD = 3
REPLY_PRIMING = 3


@dataclass(frozen=True)
class ToolCall:
    """One tool call as a model emits it: a tool name and its JSON arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Message:
    role: str
    content: str = ""
    tool_call: ToolCall | None = None

    def text(self) -> str:
        if self.tool_call is None:
            return self.content
        return self.tool_call.name + self.tool_call.arguments_json()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_call is not None:
            data["tool_call"] = {"name": self.tool_call.name, "arguments": self.tool_call.arguments}
        return data


@dataclass(frozen=True)
class ModelCall:
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def message_tokens(message: Message) -> int:
    return MESSAGE_OVERHEAD + count_tokens(message.role) + count_tokens(message.text())


def tools_tokens(schemas: list[dict[str, Any]]) -> int:
    return count_tokens(json.dumps(schemas, ensure_ascii=False, sort_keys=True)) if schemas else 0


class Transcript:
    """The messages of one run and the token bill of every model call made on them."""

    def __init__(self, system: str, user: str, tools: list[dict[str, Any]]) -> None:
        self.messages: list[Message] = []
        self.calls: list[ModelCall] = []
        self._history_tokens = 0
        self.set_tools(tools)
        self._append(Message("system", system))
        self._append(Message("user", user))

    def set_tools(self, tools: list[dict[str, Any]]) -> None:
        """Change the allowed tools (hybrid degradation); later calls pay for the new list."""
        self.tools = tools
        self._tools_tokens = tools_tokens(tools)

    def record_call(self, call: ToolCall) -> None:
        """Bill a model call that returned ``call``, then append it as the assistant message."""
        assistant = Message("assistant", tool_call=call)
        prompt = self._tools_tokens + self._history_tokens + REPLY_PRIMING
        self.calls.append(ModelCall(prompt, message_tokens(assistant)))
        self._append(assistant)

    def add_observation(self, text: str) -> None:
        self._append(Message("tool", text))

    def add_note(self, text: str) -> None:
        """A message from the harness (for example what a failed macro left behind)."""
        self._append(Message("user", text))

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.calls)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    def to_list(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.messages]

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        self._history_tokens += message_tokens(message)
