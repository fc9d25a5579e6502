"""The bundled model's server: OpenAI chat completions over llama-cpp-python, on 127.0.0.1 only.

Run as ``python -m pytest_granularity.agents.llama_server --model F.gguf ...`` by
:mod:`.local_model`; it loads the model, binds a port (0: a free one), prints one JSON line
``{"port": P}`` on stdout when it answers, and serves until it is killed.

Why not ``python -m llama_cpp.server`` (0.3.36), measured: with tools and no ``tool_choice`` it
renders a prompt without the tools, so the model never sees them; in automatic mode it ignores
the completion limit for a call's arguments, so one reply can run until the context is full;
``tool_choice: "required"`` is an HTTP 500; and a request the client gave up on goes on
generating. Here the request means what the OpenAI API says it means: tools and no
``tool_choice`` is ``"auto"``; ``"required"`` is the library's automatic mode with its
``message:`` branch ruled out at the first token; every reply is capped (the request's
``max_completion_tokens``, at most ``--max-tokens``) and stops when its deadline passes or its
client hangs up. All three are enforced by one logits processor that is called once per
generated token (:class:`Guard`). The ``system_fingerprint`` of every response names the model
file's SHA-256 and the settings, so a recorded run says what it was made with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import select
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

from ..core.errors import GranularityError
from .server_settings import CHAT_FORMAT, ServerSettings

_MESSAGE_BRANCH = "message:"
"""What the chat handler's automatic mode generates first when the model answers in prose."""


class Abandoned(GranularityError):
    """A generation stopped by the guard: ``reason`` is ``length``, ``deadline`` or ``disconnected``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Guard:
    """Caps, times and (for ``required``) steers one request's generation.

    llama-cpp-python runs a logits processor inside a C callback, where an exception is printed
    and lost, so the processor only counts and masks; the stop is raised from ``Llama.eval``,
    which the library calls from Python before the prompt and after every sampled token, across
    every completion the chat handler makes for the request (:func:`guarded_llama`).
    """

    cap: int
    deadline: float
    connection: socket.socket | None
    banned_first: frozenset[int] = frozenset()
    sampled: int = 0
    prompt_tokens: int | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.sampled == 0:
            for token in self.banned_first:
                scores[token] = -math.inf
        self.sampled += 1
        return scores

    def check(self, context_tokens: int) -> None:
        """Before llama.cpp evaluates more tokens: stop here if the reply is over, late, or unwanted."""
        if self.prompt_tokens is None:
            self.prompt_tokens = context_tokens
        if self.sampled >= self.cap:
            raise Abandoned("length")
        if time.monotonic() > self.deadline:
            raise Abandoned("deadline")
        if _hung_up(self.connection):
            raise Abandoned("disconnected")


def _hung_up(connection: socket.socket | None) -> bool:
    """True when the client closed its end (a readable socket with nothing to read)."""
    if connection is None:
        return False
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def message_branch_tokens(vocabulary: dict[int, str]) -> frozenset[int]:
    """The tokens that could begin the handler's prose branch (``message:``), to rule out for ``required``."""
    return frozenset(
        token
        for token, text in vocabulary.items()
        if text and (_MESSAGE_BRANCH.startswith(text) or text.startswith(_MESSAGE_BRANCH))
    )


def guarded_llama(**settings: Any) -> Any:
    """A ``Llama`` whose ``eval`` asks the current request's :class:`Guard` first, loaded without
    llama.cpp's extra buffer types.

    Those hold weights repacked for a CPU's special kernels; on a CPU with AMX a native build's AMX
    kernel crashes (SIGSEGV) on the first decode, in ``ggml_backend_amx_mul_mat``. Without them the
    weights stay in plain CPU buffers and the same build answers. llama-cpp-python 0.3.36 exposes
    the switch only in the low-level model parameters, which ``Llama`` reads from
    ``llama_model_default_params`` while it loads, so that function is wrapped for the load only.
    """
    import llama_cpp.llama_cpp as low_level
    from llama_cpp import Llama

    class GuardedLlama(Llama):  # type: ignore[misc,unused-ignore]
        guard: Guard | None = None

        def eval(self, tokens: Any) -> None:
            if self.guard is not None:
                self.guard.check(self.n_tokens + len(tokens))
            super().eval(tokens)

    defaults = low_level.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    low_level.llama_model_default_params = without_extra_buffers
    try:
        return GuardedLlama(**settings)
    finally:
        low_level.llama_model_default_params = defaults


PROOF_TOKENS = 4
"""What the server generates at start-up, before it says it is ready: a build that cannot evaluate
and generate fails there, before any run depends on it."""


def prove_it_generates(llama: Any) -> None:
    """Evaluate a short prompt and generate a few tokens; a broken native build crashes or raises here."""
    llama.create_completion("The capital of France is", max_tokens=PROOF_TOKENS, temperature=0.0)
    llama.reset()


def rendered(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[list[Any], list[Any] | None]:
    """The request as ``chatml-function-calling``'s template can show it to the model.

    That template renders system, user and assistant messages only, and each tool by its name and
    parameters only: a ``tool`` message (what a call returned) and a tool's description never reach
    the model. So a tool result becomes a user message that names the call it answers, and a tool's
    description goes into its parameters' schema (a JSON Schema ``description``, which the grammar
    built from the schema ignores).
    """
    names = {
        call.get("id"): (call.get("function") or {}).get("name", "")
        for message in messages
        for call in (message.get("tool_calls") or [])
        if isinstance(call, dict)
    }
    shown = [
        {
            "role": "user",
            "content": f"functions.{names.get(m.get('tool_call_id'), '?')} returned:\n{m.get('content') or ''}",
        }
        if m.get("role") == "tool"
        else m
        for m in messages
    ]
    if not tools:
        return shown, tools
    described = []
    for tool in tools:
        function = dict(tool.get("function") or {})
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if function.get("description") and isinstance(parameters, dict):
            parameters = {"description": function["description"], **parameters}
        described.append({**tool, "function": {**function, "parameters": parameters}})
    return shown, described


def _as_user_message(message: dict[str, Any], names: dict[Any, str]) -> dict[str, Any]:
    name = names.get(message.get("tool_call_id"), "?")
    return {"role": "user", "content": f"functions.{name} returned:\n{message.get('content') or ''}"}


def enum_grammar(values: list[Any]) -> str:
    """GBNF that matches exactly the JSON text of one of ``values`` (as ``json.dumps`` writes it).

    llama-cpp-python 0.3.36 builds an ``enum``'s literals without escaping the backslashes of their
    JSON, so an allowed value holding a quote (``Decimal(\"0.19\")``) makes a grammar llama.cpp cannot
    parse, and the server dies by SIGSEGV when it samples with it. Here each literal is escaped whole.
    """
    literals = (json.dumps(v).replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return "root ::= " + " | ".join(f'"{literal}"' for literal in literals) + "\n"


JSON_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
"""A JSON string's character as RFC 8259 has it (as llama.cpp's own ``json.gbnf`` writes it)."""


def schema_grammar(schema: Any) -> str:
    """GBNF for the JSON texts ``schema`` allows, as llama-cpp-python converts it, but with its string
    character rule made JSON's: the library's admits raw control characters, so a model could write a
    newline inside a string and its call would not parse."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    lines = json_schema_to_gbnf(json.dumps(schema)).splitlines()
    return "\n".join(JSON_CHAR if line.startswith("char ::= ") else line for line in lines) + "\n"


CHARS_PER_TOKEN = 2
"""Characters of string arguments allowed per token of the reply's cap: SmolLM2 writes about 3.4 characters
a token in English, so the call's markup and names keep about a third of the cap."""
ARRAY_ITEMS = 4
"""The most items an array argument may have when its schema sets no ``maxItems``."""


def bounded(schema: Any, chars: int) -> Any:
    """``schema`` with every string and array it leaves unbounded given a bound, so that the whole call
    fits in ``chars`` characters of strings: the call's JSON then always closes before the reply's cap,
    instead of being cut off in the middle of a string (and lost)."""
    leaves = _string_leaves(schema)
    return _bound(schema, max(8, chars // max(1, leaves)))


def _string_leaves(schema: Any) -> int:
    if not isinstance(schema, dict):
        return 0
    if schema.get("type") == "string":
        return 1
    if schema.get("type") == "array":
        return int(schema.get("maxItems", ARRAY_ITEMS)) * _string_leaves(schema.get("items"))
    return sum(_string_leaves(p) for p in (schema.get("properties") or {}).values())


def _bound(schema: Any, length: int) -> Any:
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") == "string":
        return {"maxLength": length, **schema}
    if schema.get("type") == "array":
        return {"maxItems": ARRAY_ITEMS, **schema, "items": _bound(schema.get("items"), length)}
    if "properties" in schema:
        return {**schema, "properties": {k: _bound(v, length) for k, v in schema["properties"].items()}}
    return schema


@contextmanager
def arguments_grammar(kind: str, cap: int) -> Iterator[None]:
    """The grammar the handler builds for a call's arguments (with ``LlamaGrammar.from_json_schema``):
    the tool's schema with its strings and arrays bounded to fit ``cap`` tokens (:func:`bounded`; a
    schema that is an ``enum`` through :func:`enum_grammar`), or any JSON value (``json``: the builder
    refuses, and the handler falls back to its JSON grammar)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    built = LlamaGrammar.__dict__["from_json_schema"]

    def from_schema(cls: Any, schema: str, verbose: bool = True) -> Any:
        if kind != "schema":
            raise ValueError("the server was started with --arguments-grammar=json")
        parsed = json.loads(schema)
        if isinstance(parsed, dict) and isinstance(parsed.get("enum"), list) and parsed["enum"]:
            return LlamaGrammar.from_string(enum_grammar(parsed["enum"]), verbose=verbose)
        return LlamaGrammar.from_string(schema_grammar(bounded(parsed, cap * CHARS_PER_TOKEN)), verbose=verbose)

    setattr(LlamaGrammar, "from_json_schema", classmethod(from_schema))  # noqa: B010 (mypy: a method may not be assigned)
    try:
        yield
    finally:
        setattr(LlamaGrammar, "from_json_schema", built)  # noqa: B010


class ModelServer:
    """One model, one request at a time (llama.cpp's context is not shared between threads)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.llama = guarded_llama(
            model_path=str(settings.model),
            n_ctx=settings.n_ctx,
            n_threads=settings.threads,
            chat_format=CHAT_FORMAT,
            verbose=False,
        )
        prove_it_generates(self.llama)
        vocabulary = {t: self._text(t) for t in range(self.llama.n_vocab())}
        self.banned_first = message_branch_tokens(vocabulary)
        self.fingerprint = settings.fingerprint(sha256_of(settings.model))
        self.lock = threading.Lock()

    def _text(self, token: int) -> str:
        return str(self.llama.detokenize([token]).decode("utf-8", "replace"))

    def complete(self, body: dict[str, Any], connection: socket.socket | None) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON of one chat-completions request."""
        deadline = time.monotonic() + self.settings.timeout
        requested = body.get("max_completion_tokens") or body.get("max_tokens") or self.settings.max_tokens
        cap = min(int(requested), self.settings.max_tokens)
        messages, tools = rendered(body.get("messages") or [], body.get("tools") or None)
        choice = body.get("tool_choice", "auto" if tools else None)
        guard = Guard(cap, deadline, connection, self.banned_first if choice == "required" and tools else frozenset())
        arguments: dict[str, Any] = {
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto" if choice == "required" else choice,
            "temperature": float(body.get("temperature", 1.0)),
            "seed": body.get("seed"),
            "max_tokens": cap,
            "logits_processor": [guard],
        }
        with self.lock, arguments_grammar(self.settings.arguments_grammar, cap):
            self.llama.guard = guard
            if body.get("seed") is not None:  # the handler does not pass a seed on: sampling draws from the Llama's
                self.llama.set_seed(int(body["seed"]))
            try:
                response = cast(dict[str, Any], self.llama.create_chat_completion(**arguments))
            except Abandoned as stop:
                _log(f"generation abandoned ({stop.reason}) after {guard.sampled} tokens")
                if stop.reason != "length":
                    return 504, _error(f"generation abandoned ({stop.reason}) after {guard.sampled} tokens")
                response = _cut_off(guard)
            except ValueError as exc:
                if "context window" in str(exc):
                    return 400, _error(str(exc), code="context_length_exceeded")
                return 400, _error(str(exc))
            finally:
                self.llama.guard = None
        response["model"] = body.get("model", self.settings.alias)
        response["system_fingerprint"] = self.fingerprint
        return 200, response


def _cut_off(guard: Guard) -> dict[str, Any]:
    """The reply of a generation stopped at its cap: no message and no call, as the API's ``length``."""
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": ""}}],
        "usage": {
            "prompt_tokens": guard.prompt_tokens or 0,
            "completion_tokens": guard.sampled,
            "total_tokens": (guard.prompt_tokens or 0) + guard.sampled,
        },
    }


def _log(line: str) -> None:
    """What the session's manager keeps of the server's last words (and tests read)."""
    print(line, file=sys.stderr, flush=True)


def _error(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _handler(model: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": model.settings.alias, "object": "model"}]})
            else:
                self._send(404, _error(f"no such path: {self.path}"))

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error(f"no such path: {self.path}"))
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            except ValueError as exc:
                self._send(400, _error(f"the request is not JSON: {exc}"))
                return
            if not isinstance(body, dict):
                self._send(400, _error("the request is not a JSON object"))
                return
            status, answer = model.complete(body, self.connection)
            self._send(status, answer)

        def _send(self, status: int, data: dict[str, Any]) -> None:
            payload = json.dumps(data).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client hung up: nobody is left to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_granularity.agents.llama_server")
    for field in fields(ServerSettings):
        kind = Path if field.name == "model" else str if field.default is MISSING else type(field.default)
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=kind, required=field.default is MISSING)
    parser.add_argument("--port", type=int, default=0)
    args = vars(parser.parse_args(argv))
    port = args.pop("port")
    settings = ServerSettings(**{name: value for name, value in args.items() if value is not None})
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)
    except OSError as exc:
        _log(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}")
        return 2
    _log(f"loading {settings.model} and generating {PROOF_TOKENS} tokens to prove the build works")
    try:
        server.RequestHandlerClass = _handler(ModelServer(settings))
    except (OSError, ValueError, RuntimeError) as exc:
        _log(f"cannot load {settings.model}: {exc}")
        return 3
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
