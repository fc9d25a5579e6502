"""A run's chat transcript in the OpenAI message format, and its token bill (docs/architecture.md, "Tokens").

Token model, exactly: for model call *i*, prompt tokens are the system message, the schemas of
the tools allowed at that call and every message before call *i*; completion tokens are the
assistant message *i*. Each message costs ``MESSAGE_OVERHEAD`` tokens of framing plus its role
and content (an assistant message's content is its text, then each tool call's name and JSON
arguments); each call's prompt also pays ``REPLY_PRIMING`` tokens. Every message is tokenised
once. Tool-call ids are framing, not content: they are not counted.

The messages are the wire format for real: an assistant message carries ``tool_calls`` with
deterministic ids (``call_1``, ``call_2``, ... in the order the run made them), and every
observation is a ``tool`` message answering one of them. A note from the harness (a ``user``
message) that arrives while an assistant message still has unanswered calls waits until the
last of them is answered, so the message order stays valid for any chat-completions server.
A model call may also carry the provider's own ``usage``, kept beside the local count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from .tokens import count_tokens

MESSAGE_OVERHEAD = 3
REPLY_PRIMING = 3


@dataclass(frozen=True)
class ToolCall:
    """One tool call as a model emits it: a tool name and its JSON arguments.

    ``raw`` is the arguments text exactly as a model sent it, when it came from a model;
    ``error`` says why that text is not a JSON object (then ``arguments`` is empty).
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    raw: str | None = None
    error: str | None = None

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)

    def arguments_text(self) -> str:
        return self.raw if self.raw is not None else self.arguments_json()


@dataclass(frozen=True)
class Usage:
    """What a provider reports for one model call.

    ``cached`` is None when the provider does not say, ``cost`` when no price is known.
    """

    prompt: int
    completion: int
    cached: int | None = None
    cost: float | None = None


@dataclass(frozen=True)
class Reply:
    """One model call's answer: text, tool calls (zero or more), and what the call cost and carried.

    ``exchange`` is the request and response as they went over the wire (without the messages
    and tool schemas, which are the transcript's), for agents that talk to a server.
    """

    content: str = ""
    calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    exchange: dict[str, Any] | None = None


@dataclass(frozen=True)
class Message:
    """One message of a run's transcript, as a chat-completions request carries it (``to_dict``).

    The transcript is the wire format for real, so the tokens billed (``message_tokens``) are those of what
    an agent's model is actually sent; an agent reads the messages so far in ``Agent.next_call``.
    """

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""

    def text(self) -> str:
        return self.content + "".join(c.name + c.arguments_text() for c in self.tool_calls)

    def to_dict(self) -> dict[str, Any]:
        """The message as a chat-completions request carries it."""
        if self.tool_calls:
            calls = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
                for c in self.tool_calls
            ]
            return {"role": self.role, "content": self.content or None, "tool_calls": calls}
        if self.role == "tool":
            return {"role": self.role, "tool_call_id": self.tool_call_id, "content": self.content}
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class ModelCall:
    prompt_tokens: int
    completion_tokens: int
    usage: Usage | None = None
    exchange: dict[str, Any] | None = None

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
        self._tool_calls = 0
        self._unanswered: list[str] = []
        self._held_notes: list[str] = []
        self.set_tools(tools)
        self._append(Message("system", system))
        self._append(Message("user", user))

    def set_tools(self, tools: list[dict[str, Any]]) -> None:
        """Change the allowed tools (hybrid degradation); later calls pay for the new list."""
        self.tools = tools
        self._tools_tokens = tools_tokens(tools)

    def record_reply(self, reply: Reply) -> tuple[ToolCall, ...]:
        """Bill a model call that returned ``reply``, append it as the assistant message; its calls, with ids."""
        calls = tuple(replace(c, id=f"call_{self._tool_calls + n}") for n, c in enumerate(reply.calls, 1))
        self._tool_calls += len(calls)
        assistant = Message("assistant", reply.content, calls)
        prompt = self._tools_tokens + self._history_tokens + REPLY_PRIMING
        self.calls.append(ModelCall(prompt, message_tokens(assistant), reply.usage, reply.exchange))
        self._append(assistant)
        self._unanswered = [c.id for c in calls]
        return calls

    def add_observation(self, call_id: str, text: str) -> None:
        """The tool message answering the call ``call_id``."""
        self._append(Message("tool", text, tool_call_id=call_id))
        if call_id in self._unanswered:
            self._unanswered.remove(call_id)
        if not self._unanswered:
            for note in self._held_notes:
                self._append(Message("user", note))
            self._held_notes.clear()

    def add_note(self, text: str) -> None:
        """A message from the harness (for example what a failed macro left behind)."""
        if self._unanswered:
            self._held_notes.append(text)
        else:
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

    def provider_usage(self) -> Usage | None:
        """The provider's usage summed over the calls that reported one; None when none did."""
        reported = [c.usage for c in self.calls if c.usage is not None]
        if not reported:
            return None
        cached = [u.cached for u in reported if u.cached is not None]
        costs = [u.cost for u in reported if u.cost is not None]
        return Usage(
            sum(u.prompt for u in reported),
            sum(u.completion for u in reported),
            sum(cached) if cached else None,
            round(sum(costs), 6) if costs else None,
        )

    def to_list(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.messages]

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        self._history_tokens += message_tokens(message)
