"""An agent that asks any OpenAI-compatible chat-completions endpoint for its next tool call.

The request is the transcript as it is (the wire format: ``tool_calls`` with ids, ``tool``
messages answering them), the allowed tools as ``tools``, one call per turn asked for with
``parallel_tool_calls: false``, and the sampling settings that were given (nothing else, so a
server's defaults stay its own). The reply is read leniently, since servers differ: text without
a tool call, several calls, and arguments that are not JSON all come back as they are and the
executor turns them into observations. A reply that is not shaped like a chat completion (no
message, a message, content or tool call list of the wrong type, usage counts that are not whole
numbers >= 0) is the server's fault, not the model's: an :class:`InfrastructureError` naming the
call and the field, never an agent failure and never billed.

How a request reaches the model is the ``send`` callable's business (the SDK, the record and
replay cache, or both), so this module never imports ``openai``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.tokens import count_tokens
from ..core.transcript import Message, Reply, ToolCall, Usage
from . import AgentSetup, InfrastructureError
from .strict_tools import strict_tool, without_nulls

Send = Callable[[dict[str, Any], str], dict[str, Any]]
"""``send(body, where)`` → the response JSON; ``where`` names the task and call for error messages."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; cached prompt tokens at the prompt price unless given."""

    prompt: float
    completion: float
    cached: float | None = None

    def cost(self, usage: Usage) -> float:
        cached = usage.cached or 0
        cached_price = self.prompt if self.cached is None else self.cached
        return (
            (usage.prompt - cached) * self.prompt + cached * cached_price + usage.completion * self.completion
        ) / 1e6


@dataclass(frozen=True)
class Sampling:
    """What the request asks of the model beyond the conversation; None leaves the server's default."""

    model: str
    temperature: float | None = None
    max_completion_tokens: int | None = None
    tool_choice: str | None = None
    """``auto``, ``required`` or ``none``; None sends nothing (the API's default, auto with tools)."""
    strict_tools: bool = False
    """Send each tool as a strict function where it has a strict form (:mod:`.strict_tools`)."""


class ChatAgent:
    """One run's agent: builds each request from the transcript, sends it, reads the reply.

    With a ``context`` (the model's window in tokens), a request that would not fit has its oldest
    tool results cut (see :func:`fit_context`), and the request's record says how many."""

    def __init__(
        self,
        setup: AgentSetup,
        sampling: Sampling,
        send: Send,
        price: Price | None = None,
        context: int | None = None,
    ) -> None:
        self.task = setup.task
        self.seed = setup.seed
        self.sampling = sampling
        self.send = send
        self.price = price
        self.context = context
        self.calls = 0

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> Reply:
        self.calls += 1
        body = request_body(self.sampling, messages, tools, self.seed)
        if self.context is not None:
            budget = self.context - (self.sampling.max_completion_tokens or 0) - CONTEXT_MARGIN
            body["messages"], cut = fit_context(body["messages"], body["tools"], budget)
        where = f"task {self.task.id}, model call {self.calls}"
        response = self.send(body, where)
        try:
            reply = parse_reply(response)
        except InfrastructureError as exc:
            raise InfrastructureError(f"{where}: {exc}") from None
        calls = tuple(without_nulls(c, tools) for c in reply.calls) if self.sampling.strict_tools else reply.calls
        usage = reply.usage
        if usage is not None and self.price is not None:
            usage = Usage(usage.prompt, usage.completion, usage.cached, round(self.price.cost(usage), 8))
        record = request_record(body)
        if self.context is not None and cut:
            record["cut_observations"] = cut
        return Reply(reply.content, calls, usage, {"request": record, "response": response})


def request_body(
    sampling: Sampling, messages: Sequence[Message], tools: Sequence[dict[str, Any]], seed: int | None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": sampling.model,
        "messages": [m.to_dict() for m in messages],
        "tools": [strict_tool(t) for t in tools] if sampling.strict_tools else list(tools),
        "parallel_tool_calls": False,
    }
    optional = {
        "temperature": sampling.temperature,
        "seed": seed,
        "max_completion_tokens": sampling.max_completion_tokens,
        "tool_choice": sampling.tool_choice,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    return body


CONTEXT_MARGIN = 64
"""Tokens kept free beside the reply's cap: the chat template's own markup."""
CUT_NOTE = "[this result was cut to fit the model's context window ({chars} characters); call the tool again to see it]"


def fit_context(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], budget: int
) -> tuple[list[dict[str, Any]], int]:
    """The messages with the oldest tool results cut until the request fits ``budget`` tokens, and how many
    were cut. The count is cl100k's over the request's JSON, which over-counts the rendered prompt of the
    models this is for (SmolLM2's prompt tokens were 0.29-0.94 of it, median 0.64, over 300 recorded
    requests), so a request that fits here fits there. Results go oldest first; the system message,
    the task and the model's own calls are never cut."""
    fitted = list(messages)
    cut = 0
    for index in [i for i, m in enumerate(fitted) if m.get("role") == "tool"]:
        if _request_tokens(fitted, tools) <= budget:
            break
        content = str(fitted[index].get("content") or "")
        fitted[index] = {**fitted[index], "content": CUT_NOTE.format(chars=len(content))}
        cut += 1
    return fitted, cut


def _request_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    return count_tokens(json.dumps(messages, ensure_ascii=False) + json.dumps(tools, ensure_ascii=False))


def request_record(body: dict[str, Any]) -> dict[str, Any]:
    """The request without what the run record already holds: the messages are its first N, the tools are named."""
    record = {k: v for k, v in body.items() if k not in ("messages", "tools")}
    record["messages"] = len(body["messages"])
    record["tools"] = [t["function"]["name"] for t in body["tools"]]
    return record


def parse_reply(response: dict[str, Any]) -> Reply:
    """The reply's text, tool calls and usage; a field of the wrong shape is an InfrastructureError naming it."""
    try:
        message = response["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        message = None
    if not isinstance(message, dict):
        raise _malformed(response, "has no choices[0].message")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise _malformed(response, "has a choices[0].message.content that is not text")
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list) or not all(isinstance(c, dict) for c in raw_calls):
        raise _malformed(response, "has a choices[0].message.tool_calls that is not a list of objects")
    for n, call in enumerate(raw_calls):
        if not isinstance(call.get("function") or {}, dict):
            raise _malformed(response, f"has a choices[0].message.tool_calls[{n}].function that is not an object")
    return Reply(content or "", tuple(_tool_call(c) for c in raw_calls), _usage(response.get("usage")))


def _malformed(response: dict[str, Any], problem: str) -> InfrastructureError:
    return InfrastructureError(f"the server's reply {problem}: {json.dumps(response)[:300]}")


def _tool_call(data: dict[str, Any]) -> ToolCall:
    function = data.get("function") or {}
    name = str(function.get("name") or "")
    raw = function.get("arguments")
    if not isinstance(raw, str):
        raw = json.dumps(raw if raw is not None else {}, ensure_ascii=False, sort_keys=True)
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        return ToolCall(name, {}, raw=raw, error=f"invalid JSON: {exc}")
    if not isinstance(arguments, dict):
        return ToolCall(name, {}, raw=raw, error=f"a JSON {type(arguments).__name__}, not an object")
    return ToolCall(name, arguments, raw=raw)


def _usage(data: Any) -> Usage | None:
    """The provider's counts; a count that is there but not a whole number >= 0 is refused, never billed."""
    if data is not None and not isinstance(data, dict):
        raise InfrastructureError(f"the server's usage is {json.dumps(data)[:100]}, not an object")
    if data is None or data.get("prompt_tokens") is None:
        return None
    details = data.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(
        _count(data, "prompt_tokens"),
        _count(data, "completion_tokens", 0),
        None if not isinstance(details, dict) or cached is None else _count(details, "cached_tokens"),
    )


def _count(data: dict[str, Any], field: str, default: int | None = None) -> int:
    value = data.get(field, default)
    if value is None and default is not None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InfrastructureError(f"the server's usage.{field} is {json.dumps(value)}, not a whole number >= 0")
    return value
