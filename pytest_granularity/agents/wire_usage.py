"""What a model call used, read from the provider's own fields, in the three wire formats hosts speak.

A host (Claude Code, Codex CLI, opencode) talks to its model in one of three formats, each with
its usage fields in a place of its own, in a plain JSON reply and in a server-sent event stream:

- OpenAI chat completions (a path ending ``/chat/completions``): ``usage.prompt_tokens``,
  ``completion_tokens`` and ``prompt_tokens_details.cached_tokens``; in a stream, the chunk that
  carries ``usage`` (sent when the request asks ``stream_options.include_usage``).
- OpenAI Responses (``/responses``): ``usage.input_tokens``, ``output_tokens`` and
  ``input_tokens_details.cached_tokens``; in a stream, the ``response.completed`` event's
  ``response.usage``.
- Anthropic Messages (``/messages``): the prompt is ``usage.input_tokens`` +
  ``cache_creation_input_tokens`` + ``cache_read_input_tokens``, the completion
  ``output_tokens``, cached ``cache_read_input_tokens``; in a stream, ``message_start``'s
  ``message.usage`` updated by each ``message_delta``'s ``usage`` (running totals).

Anthropic's ``input_tokens`` leaves out the cached part, so the prompt is the sum of the three;
the other two formats count cached tokens inside the prompt. A reply whose fields are missing or
not whole numbers is not metered (``None``): the proxy never guesses a count.

A host that asks for a stream from a server that answers plain JSON (the bundled local model's
server does not stream) gets the reply as chat-completions chunks: :func:`chat_stream`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypeGuard

from ..core.transcript import Usage

CHAT = "chat"
RESPONSES = "responses"
MESSAGES = "messages"
_SUFFIXES = {"/chat/completions": CHAT, "/responses": RESPONSES, "/messages": MESSAGES}


def wire_format(path: str) -> str | None:
    """The format a request path speaks, or None for any other request (a model list, a health check)."""
    bare = path.split("?", 1)[0].rstrip("/")
    return next((name for suffix, name in _SUFFIXES.items() if bare.endswith(suffix)), None)


def usage_of(fmt: str, content_type: str, body: str) -> Usage | None:
    """The usage a reply reports in ``fmt``, from a JSON body or an event stream; None when it reports none."""
    if "text/event-stream" in content_type:
        return _stream_usage(fmt, list(_events(body)))
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return _json_usage(fmt, data.get("usage") if isinstance(data, dict) else None)


def _json_usage(fmt: str, usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    if fmt == CHAT:
        return _counts(usage, ("prompt_tokens",), "completion_tokens", ("prompt_tokens_details", "cached_tokens"))
    if fmt == RESPONSES:
        return _counts(usage, ("input_tokens",), "output_tokens", ("input_tokens_details", "cached_tokens"))
    prompt = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return _counts(usage, prompt, "output_tokens", ("cache_read_input_tokens",))


def _counts(usage: dict[str, Any], prompt: tuple[str, ...], completion: str, cached: tuple[str, ...]) -> Usage | None:
    """``prompt`` fields summed (absent ones are 0, the first is required), ``completion``, and the cached
    count at the path ``cached`` when there is one."""
    values = [usage.get(name, 0 if n else None) for n, name in enumerate(prompt)] + [usage.get(completion, 0)]
    counts = [v for v in values if _whole(v)]
    if len(counts) != len(values):
        return None
    node: Any = usage
    for name in cached:
        node = node.get(name) if isinstance(node, dict) else None
    return Usage(sum(counts[:-1]), counts[-1], node if _whole(node) else None)


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _events(body: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of an event stream's ``data:`` lines (``[DONE]`` and other text are skipped)."""
    for line in body.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            data = json.loads(line[5:].strip())
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def _stream_usage(fmt: str, events: list[dict[str, Any]]) -> Usage | None:
    if fmt == CHAT:
        reported = [e["usage"] for e in events if isinstance(e.get("usage"), dict)]
        return _json_usage(CHAT, reported[-1]) if reported else None
    if fmt == RESPONSES:
        done = [e.get("response") for e in events if e.get("type") == "response.completed"]
        return _json_usage(RESPONSES, done[-1].get("usage")) if done and isinstance(done[-1], dict) else None
    usage: dict[str, Any] = {}
    for event in events:
        if event.get("type") == "message_start" and isinstance(event.get("message"), dict):
            usage.update(event["message"].get("usage") or {})
        elif event.get("type") == "message_delta" and isinstance(event.get("usage"), dict):
            usage.update(event["usage"])
    return _json_usage(MESSAGES, usage) if usage else None


def chat_stream(reply: dict[str, Any], include_usage: bool) -> str:
    """A chat-completions reply as the event stream a streaming server sends: a chunk with the message's
    text and tool calls, one with the finish reason, the usage chunk when asked for, and ``[DONE]``."""
    base = {key: reply.get(key) for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    chunks = []
    for choice in reply.get("choices") or []:
        message, index = choice.get("message") or {}, choice.get("index", 0)
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": n, **call} for n, call in enumerate(message["tool_calls"])]
        chunks.append(base | {"choices": [{"index": index, "delta": delta, "finish_reason": None}]})
        last = {"index": index, "delta": {}, "finish_reason": choice.get("finish_reason")}
        chunks.append(base | {"choices": [last]})
    if include_usage and reply.get("usage") is not None:
        chunks.append(base | {"choices": [], "usage": reply["usage"]})
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
