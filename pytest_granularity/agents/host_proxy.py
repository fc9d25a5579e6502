"""A metering, recording proxy on 127.0.0.1 between an agent host and its model endpoint.

A host (Claude Code, Codex CLI, opencode) talks to its model itself; the harness sees its model
calls only by standing in the way. Every request is passed to the upstream endpoint as it came
(headers too: the key is the host's, never read or stored here); what the reply used is counted
from the provider's own fields (``wire_usage``); and the reply is recorded with the project's
record/replay cache (``model_cache``: one readable JSON file per request, the same modes), so a
recorded host session replays with no key and no network.

A host's requests are not all reproducible, so the recording's key is the request with these
made canonical (the request sent upstream is never changed):

- the fields ``metadata`` (Claude Code's per-session ``user_id``), ``client_metadata`` and
  ``prompt_cache_key`` (Codex CLI's session, turn and installation ids, a timestamp), ``user``,
  ``safety_identifier``, and ``id`` at any depth (Codex CLI gives the items of its input new ids in
  every session; a tool call's id from a recorded reply is the same in a replay anyway) are left out;
- every string naming the host's own scratch folder (its working directory, home and config,
  which are new for every run) has it replaced by ``<scratch>``;
- dates (``2026-12-03``, ``Thu Dec 03 2026``, which hosts put in their system prompts) become
  ``<date>``.

A request that asks for a stream (``"stream": true``) from an upstream that answers plain JSON
gets chat-completions chunks made from the reply (opencode retries a plain JSON answer forever);
the recording keeps the upstream's reply as it was. Only successful replies (status 200) are
recorded; any other answer is passed through and not counted.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import GranularityError
from ..core.transcript import Usage
from . import InfrastructureError
from .model_cache import ModelCache, request_key
from .wire_usage import CHAT, chat_stream, usage_of, wire_format

NON_REPRODUCIBLE_FIELDS = ("metadata", "client_metadata", "prompt_cache_key", "user", "safety_identifier", "id")
SCRATCH = "<scratch>"
DATE = "<date>"
_DATES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]* (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[a-z]* \d{1,2},? \d{4}\b"
)
_NOT_FORWARDED = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding", "keep-alive"}
DEFAULT_TIMEOUT = 300.0
BAD_GATEWAY = 502
OK = 200


@dataclass(frozen=True)
class ProxySettings:
    """``upstream`` is the model endpoint's base URL (None: recordings only); ``folder`` and ``mode`` are the
    recordings' (``model_cache.MODES``); ``scratch`` the host's scratch folders, canonical in the key."""

    upstream: str | None
    folder: Path | None = None
    mode: str = "off"
    session: str = ""
    timeout: float = DEFAULT_TIMEOUT
    scratch: tuple[str, ...] = ()
    prefix: str = "/v1"
    """The base URL's path when there is no upstream to take it from (a replay)."""


@dataclass(frozen=True)
class Exchange:
    """One request through the proxy: where it went, its recording's key, and what it used."""

    path: str
    key: str
    status: int
    source: str
    """``upstream``, ``recording``, or ``failed`` (unreachable, or no recording to replay)."""
    usage: Usage | None = None
    error: str = ""


@dataclass
class _Meter:
    exchanges: list[Exchange] = field(default_factory=list)
    taken: int = 0
    waited: float = 0.0
    """Seconds the requests answered (status 200) so far took, each counted whole."""
    open: list[float] = field(default_factory=list)
    """When each request still being answered arrived."""
    lock: threading.Lock = field(default_factory=threading.Lock)


class _UpstreamAnswer(GranularityError):
    """A reply that is not a success: passed to the host, never recorded."""

    def __init__(self, status: int, content_type: str, body: str) -> None:
        super().__init__(f"upstream answered {status}")
        self.status, self.content_type, self.body = status, content_type, body


class MeteringProxy:
    """``with MeteringProxy(settings) as proxy:`` serves at ``proxy.base_url`` until the block ends."""

    def __init__(self, settings: ProxySettings) -> None:
        self.settings = settings
        self._meter = _Meter()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.answer))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The URL a host is given instead of its endpoint's: same path, this proxy's address."""
        path = urlsplit(self.settings.upstream).path.rstrip("/") if self.settings.upstream else self.settings.prefix
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def __enter__(self) -> MeteringProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    @property
    def exchanges(self) -> list[Exchange]:
        with self._meter.lock:
            return list(self._meter.exchanges)

    def take(self) -> list[Exchange]:
        """The exchanges since the last ``take``: what to bill the next reply for."""
        with self._meter.lock:
            new = self._meter.exchanges[self._meter.taken :]
            self._meter.taken = len(self._meter.exchanges)
            return new

    def model_seconds(self) -> float:
        """How long the host has waited on its model's answers, requests still open included. A host's time
        limit does not count it: the model's speed is the machine's load, and where a recorded run ended by that
        limit, its replay (answered at once) would go on to ask what was never recorded. A request that failed
        is not an answer: a host that asks again and again is still stopped."""
        now = time.monotonic()
        with self._meter.lock:
            return self._meter.waited + sum(now - arrived for arrived in self._meter.open)

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        """Status, content type and body for one request from the host; the exchange and its time are metered."""
        arrived, status = time.monotonic(), BAD_GATEWAY
        with self._meter.lock:
            self._meter.open.append(arrived)
        try:
            status, content_type, data = self._answer(method, path, headers, body)
            return status, content_type, data
        finally:
            with self._meter.lock:
                self._meter.open.remove(arrived)
                self._meter.waited += time.monotonic() - arrived if status == OK else 0.0

    def _answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        request = _json(body)
        identity = {"method": method, "path": path, "body": canonical(request, self.settings.scratch)}
        key, fmt, sources = request_key(identity), wire_format(path), list[str]()
        live = partial(self._fetch, method, path, headers, body, sources)
        try:
            response = self._recorded(identity, live) if self.settings.folder else live(identity, path)
        except _UpstreamAnswer as answer:
            self._log(Exchange(path, key, answer.status, "upstream"))
            return answer.status, answer.content_type, answer.body.encode()
        except (InfrastructureError, OSError) as exc:
            self._log(Exchange(path, key, BAD_GATEWAY, "failed", error=str(exc)))
            error = {"error": {"message": f"granularity proxy: {exc}", "type": "proxy_error"}}
            return BAD_GATEWAY, "application/json", json.dumps(error).encode()
        usage = usage_of(fmt, response["content_type"], response["body"]) if fmt else None
        self._log(Exchange(path, key, OK, "upstream" if sources else "recording", usage))
        content_type, text = response["content_type"], response["body"]
        if fmt == CHAT and isinstance(request, dict) and request.get("stream") and "event-stream" not in content_type:
            include = bool((request.get("stream_options") or {}).get("include_usage"))
            content_type, text = "text/event-stream", chat_stream(json.loads(text), include)
        return OK, content_type, text.encode()

    def _recorded(self, identity: dict[str, Any], live: Callable[[dict[str, Any], str], dict[str, Any]]) -> Any:
        settings = self.settings
        assert settings.folder is not None
        cache = ModelCache(settings.folder, settings.mode, settings.session, live if settings.upstream else None)
        return cache(identity, f"host request {identity['method']} {identity['path']}")

    def _fetch(
        self, method: str, path: str, headers: dict[str, str], body: bytes, sources: list[str], *_: Any
    ) -> dict[str, Any]:
        """The upstream's reply as a recordable object; a failure status raises it as ``_UpstreamAnswer``."""
        if self.settings.upstream is None:
            raise InfrastructureError("no upstream endpoint to ask (replay only)")
        origin = urlsplit(self.settings.upstream)
        url = f"{origin.scheme}://{origin.netloc}{path}"
        sent = {k: v for k, v in headers.items() if k.lower() not in _NOT_FORWARDED} | {"Accept-Encoding": "identity"}
        request = urllib.request.Request(url, data=body if body else None, headers=sent, method=method)
        sources.append("upstream")
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout) as reply:
                text = reply.read().decode("utf-8", "replace")
                content_type = reply.headers.get("Content-Type", "application/json")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            raise _UpstreamAnswer(exc.code, exc.headers.get("Content-Type", "application/json"), text) from None
        except urllib.error.URLError as exc:
            raise InfrastructureError(
                f"the model endpoint {origin.netloc} could not be reached: {exc.reason}"
            ) from None
        return {"status": 200, "content_type": content_type, "body": text}

    def _log(self, exchange: Exchange) -> None:
        with self._meter.lock:
            self._meter.exchanges.append(exchange)


def canonical(value: Any, scratch: tuple[str, ...]) -> Any:
    """``value`` with the non-reproducible fields left out and volatile strings replaced (see the module)."""
    if isinstance(value, dict):
        return {k: canonical(v, scratch) for k, v in value.items() if k not in NON_REPRODUCIBLE_FIELDS}
    if isinstance(value, list):
        return [canonical(v, scratch) for v in value]
    if isinstance(value, str):
        for folder in sorted(scratch, key=len, reverse=True):
            value = value.replace(folder, SCRATCH)
        return _DATES.sub(DATE, value)
    return value


def total(exchanges: list[Exchange]) -> Usage | None:
    """The usage of ``exchanges`` summed; None when none reported any."""
    reported = [e.usage for e in exchanges if e.usage is not None]
    if not reported:
        return None
    cached = [u.cached for u in reported if u.cached is not None]
    return Usage(sum(u.prompt for u in reported), sum(u.completion for u in reported), sum(cached) if cached else None)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body.decode("utf-8", "replace")


def _handler(
    answer: Callable[[str, str, dict[str, str], bytes], tuple[int, str, bytes]],
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, content_type, data = answer(self.command, self.path, dict(self.headers.items()), body)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
