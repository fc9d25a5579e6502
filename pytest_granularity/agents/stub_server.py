"""A local OpenAI-compatible server for offline checks: scripted replies, or the reference agent.

``ChatServer`` answers ``POST /v1/chat/completions`` on 127.0.0.1 (a free port) with whatever its
``respond(body)`` returns, and keeps every request body it received. ``ReferencePlayer`` is a
``respond`` that plays the reference agent's decisions for any number of concurrent runs of the
given tasks, so the whole path (SDK, HTTP, executor, verifier) runs real tasks with a known
outcome. It reports a usage of its own (a character-based figure, not a tokenizer's) and keeps
the sum, so a test can check that the provider tokens in a report are exactly what it billed.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..core.tasks import Task
from ..core.transcript import Message, ToolCall, Usage
from ..core.workspace import Workspace
from . import setup_for
from .reference import ReferenceAgent

Answer = tuple[int, dict[str, str], dict[str, Any] | bytes]
"""Status, headers and the body: an object sent as JSON, or bytes sent as they are (a broken reply);
a ``Content-Length`` header overrides the body's, so a reply can end before what it announced."""
Turn = tuple[list[Message], list[dict[str, Any]]]
Respond = Callable[[dict[str, Any]], Answer]


class ChatServer:
    """``with ChatServer(respond) as server:`` serves at ``server.base_url`` until the block ends."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    server.requests.append(body)
                try:
                    status, headers, payload = server.respond(body)
                except Exception as exc:
                    status, headers, payload = (
                        500,
                        {},
                        {"error": {"message": f"stub server: {type(exc).__name__}: {exc}"}},
                    )
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                fixed = {"Content-Type": "application/json", "Content-Length": str(len(data))}
                for name, value in {**fixed, **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def completion(message: dict[str, Any], usage: Usage | None = None, model: str = "stub") -> dict[str, Any]:
    """A chat-completions response body holding ``message``."""
    body: dict[str, Any] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage.prompt,
            "completion_tokens": usage.completion,
            "total_tokens": usage.prompt + usage.completion,
            "prompt_tokens_details": {"cached_tokens": usage.cached or 0},
        }
    return body


def tool_message(*calls: tuple[str, str]) -> dict[str, Any]:
    """An assistant message calling each ``(name, arguments text)``, with server-made ids."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_srv{n}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for n, (name, arguments) in enumerate(calls)
        ],
    }


class ReferencePlayer:
    """A ``respond`` that answers as the in-process reference agent would, for runs of ``tasks``.

    A conversation is recognised by its content (roles, texts, tool names and arguments; not the
    ids). For each state it reached, the player keeps the requests that led there, and answers by
    replaying them through a fresh reference agent: runs in the same state share it, and a run
    whose earlier requests were answered elsewhere (from a recording) is still recognised.
    """

    def __init__(self, tasks: Iterable[Task], delay: float = 0.0) -> None:
        self.delay = delay
        self.oracles: dict[str, tuple[Task, dict[str, bytes]]] = {}
        for task in tasks:
            with Workspace.for_task(task) as workspace:
                self.oracles[task.prompt] = (task, dict(workspace.initial))
        self.billed = Usage(0, 0, 0)
        self._lineage: dict[str, list[Turn]] = {}
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Answer:
        if self.delay:
            time.sleep(self.delay)
        messages, tools = body["messages"], body["tools"]
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
        with self._lock:
            history = [] if last is None else self._lineage.get(_signature(messages[: last + 1]))
        if history is None:
            return 400, {}, {"error": {"message": "no conversation in this state", "type": "invalid_request_error"}}
        task, initial = self.oracles[messages[1]["content"]]
        agent = ReferenceAgent(setup_for(ReferenceAgent, task, initial))
        for turn in history:
            agent.next_call(*turn)
        turn = ([Message(m["role"], m.get("content") or "") for m in messages], tools)
        call = agent.next_call(*turn)
        assert isinstance(call, ToolCall)
        reply = tool_message((call.name, call.arguments_json()))
        with self._lock:
            self._lineage[_signature([*messages, reply])] = [*history, turn]
            usage = self._bill(body, call)
        return 200, {}, completion(reply, usage, body["model"])

    def _bill(self, body: dict[str, Any], call: ToolCall) -> Usage:
        prompt = len(json.dumps(body["messages"])) // 4 + len(json.dumps(body["tools"])) // 4
        usage = Usage(
            prompt, len(call.name + call.arguments_json()) // 4 + 1, prompt // 2 if len(body["messages"]) > 2 else 0
        )
        self.billed = Usage(
            self.billed.prompt + usage.prompt,
            self.billed.completion + usage.completion,
            (self.billed.cached or 0) + (usage.cached or 0),
        )
        return usage


def _signature(messages: Sequence[dict[str, Any]]) -> str:
    parts = [
        (
            m["role"],
            m.get("content") or "",
            [(c["function"]["name"], c["function"]["arguments"]) for c in m.get("tool_calls") or []],
        )
        for m in messages
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()
