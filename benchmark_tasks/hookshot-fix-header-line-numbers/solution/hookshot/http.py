"""Socket-free HTTP/1.1 request and response objects.

hookshot never opens connections itself. This module builds and parses the
HTTP wire format so that transports (see :mod:`hookshot.transport`) can be
swapped freely and tests can inspect exactly what would be sent or received.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Union

from .urls import parse_query, split_url, with_query

CRLF = b"\r\n"
HEADER_TERMINATOR = CRLF + CRLF
DEFAULT_HTTP_VERSION = "HTTP/1.1"
DEFAULT_USER_AGENT = "hookshot/0.4"
MAX_HEADER_COUNT = 100
DEFAULT_CHUNK_SIZE = 1024
SUPPORTED_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
)
METHODS_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})
REASON_PHRASES: dict[int, str] = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    301: "Moved Permanently",
    302: "Found",
    304: "Not Modified",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    410: "Gone",
    413: "Content Too Large",
    422: "Unprocessable Content",
    425: "Too Early",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

_TOKEN_FORBIDDEN = frozenset(' \t\r\n:()<>@,;\\"/[]?={}')

HeaderSource = Union["Headers", Mapping[str, str], Iterable[tuple[str, str]], None]


class HttpParseError(ValueError):
    """Raised when raw bytes are not a well-formed HTTP message."""


class Headers:
    """An ordered, case-insensitive multi-map of HTTP header fields."""

    def __init__(self, items: HeaderSource = None) -> None:
        self._items: list[tuple[str, str]] = []
        if items is None:
            return
        if isinstance(items, Headers):
            pairs: Iterable[tuple[str, str]] = items.items()
        elif isinstance(items, Mapping):
            pairs = items.items()
        else:
            pairs = items
        for name, value in pairs:
            self.add(name, value)

    @staticmethod
    def _check(name: str, value: str) -> None:
        if not name:
            raise ValueError("header name must not be empty")
        bad = sorted(set(name) & _TOKEN_FORBIDDEN)
        if bad:
            raise ValueError(f"header name {name!r} contains forbidden characters {bad!r}")
        if "\r" in value or "\n" in value:
            raise ValueError(f"value of header {name!r} must not contain CR or LF")

    def add(self, name: str, value: object) -> None:
        """Append a field, keeping any existing fields with the same name."""
        text = str(value).strip()
        self._check(name, text)
        self._items.append((name, text))

    def set(self, name: str, value: object) -> None:
        """Replace every field called *name* with a single new value."""
        self.remove(name)
        self.add(name, value)

    def setdefault(self, name: str, value: object) -> str:
        """Add *name* only if it is missing; return the value now in effect."""
        existing = self.get(name)
        if existing is not None:
            return existing
        self.add(name, value)
        return str(value).strip()

    def get(self, name: str, default: str | None = None) -> str | None:
        """Return the first value for *name*, or *default* if absent."""
        wanted = name.lower()
        for key, value in self._items:
            if key.lower() == wanted:
                return value
        return default

    def get_all(self, name: str) -> list[str]:
        """Return every value for *name* in the order they were added."""
        wanted = name.lower()
        return [value for key, value in self._items if key.lower() == wanted]

    def remove(self, name: str) -> int:
        """Remove all fields called *name* and return how many were removed."""
        wanted = name.lower()
        kept = [(key, value) for key, value in self._items if key.lower() != wanted]
        removed = len(self._items) - len(kept)
        self._items = kept
        return removed

    def items(self) -> list[tuple[str, str]]:
        """Return a copy of the ``(name, value)`` pairs in order."""
        return list(self._items)

    def to_dict(self) -> dict[str, str]:
        """Collapse into a plain dict, joining repeated fields with ``", "``."""
        merged: dict[str, str] = {}
        for key, value in self._items:
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        return merged

    def copy(self) -> Headers:
        """Return an independent copy."""
        return Headers(self._items)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return [(k.lower(), v) for k, v in self._items] == [
            (k.lower(), v) for k, v in other._items
        ]

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


def _decode_json(body: bytes, what: str) -> Any:
    if not body:
        raise HttpParseError(f"{what} has an empty body; expected JSON")
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise HttpParseError(f"{what} body is not valid UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise HttpParseError(f"{what} body is not valid JSON: {exc.msg}") from exc


def _serialize(start_line: str, headers: Headers, body: bytes) -> bytes:
    lines = [start_line, *(f"{name}: {value}" for name, value in headers.items())]
    head = "\r\n".join(lines).encode("latin-1")
    return head + HEADER_TERMINATOR + body


@dataclass
class Request:
    """An HTTP request: method, request target, headers and raw body."""

    method: str
    target: str
    headers: Headers = field(default_factory=Headers)
    body: bytes = b""
    version: str = DEFAULT_HTTP_VERSION

    @property
    def path(self) -> str:
        """The target without its query string."""
        return self.target.partition("?")[0]

    @property
    def query(self) -> dict[str, list[str]]:
        """The decoded query parameters of the target."""
        return parse_query(self.target.partition("?")[2])

    @property
    def content_type(self) -> str | None:
        """The media type from ``Content-Type``, lower-cased, without parameters."""
        value = self.headers.get("Content-Type")
        return value.split(";", 1)[0].strip().lower() if value else None

    def json(self) -> Any:
        """Decode the body as JSON."""
        return _decode_json(self.body, "request")

    def to_bytes(self) -> bytes:
        """Serialise to the HTTP/1.1 wire format, adding ``Content-Length``."""
        headers = self.headers.copy()
        if self.body or self.method in METHODS_WITH_BODY:
            headers.remove("Transfer-Encoding")
            headers.set("Content-Length", len(self.body))
        return _serialize(f"{self.method} {self.target} {self.version}", headers, self.body)


@dataclass
class Response:
    """An HTTP response: status code, reason phrase, headers and raw body."""

    status: int
    headers: Headers = field(default_factory=Headers)
    body: bytes = b""
    reason: str = ""
    version: str = DEFAULT_HTTP_VERSION

    def __post_init__(self) -> None:
        if not 100 <= self.status <= 599:
            raise ValueError(f"HTTP status must be between 100 and 599, got {self.status}")
        if not self.reason:
            self.reason = REASON_PHRASES.get(self.status, "")

    @property
    def ok(self) -> bool:
        """True for 2xx responses."""
        return 200 <= self.status < 300

    def json(self) -> Any:
        """Decode the body as JSON."""
        return _decode_json(self.body, "response")

    def to_bytes(self) -> bytes:
        """Serialise to the HTTP/1.1 wire format, adding ``Content-Length``."""
        headers = self.headers.copy()
        headers.remove("Transfer-Encoding")
        headers.set("Content-Length", len(self.body))
        status_line = f"{self.version} {self.status} {self.reason}".rstrip()
        return _serialize(status_line, headers, self.body)


def encode_chunked(body: bytes, chunk_size: int = DEFAULT_CHUNK_SIZE) -> bytes:
    """Encode *body* with chunked transfer coding."""
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    parts: list[bytes] = []
    for start in range(0, len(body), chunk_size):
        chunk = body[start : start + chunk_size]
        parts.append(f"{len(chunk):x}".encode("ascii") + CRLF + chunk + CRLF)
    parts.append(b"0" + CRLF + CRLF)
    return b"".join(parts)


def decode_chunked(data: bytes) -> bytes:
    """Decode a chunked transfer-coded body. Trailer fields are ignored."""
    body = bytearray()
    position = 0
    while True:
        line_end = data.find(CRLF, position)
        if line_end == -1:
            raise HttpParseError(f"chunked body is missing a chunk-size line at offset {position}")
        size_text = data[position:line_end].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise HttpParseError(f"invalid chunk size {size_text!r} at offset {position}") from None
        if size < 0:
            raise HttpParseError(f"negative chunk size at offset {position}")
        position = line_end + len(CRLF)
        if size == 0:
            return bytes(body)
        chunk_end = position + size
        if data[chunk_end : chunk_end + len(CRLF)] != CRLF:
            raise HttpParseError(
                f"chunk of {size} bytes at offset {position} is truncated or unterminated"
            )
        body += data[position:chunk_end]
        position = chunk_end + len(CRLF)


def _split_message(raw: bytes) -> tuple[str, list[str], bytes]:
    if not raw:
        raise HttpParseError("cannot parse an empty message")
    head, separator, rest = raw.partition(HEADER_TERMINATOR)
    if not separator:
        raise HttpParseError("message has no blank line terminating the headers")
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], lines[1:], rest


def _parse_header_lines(lines: list[str]) -> Headers:
    fields: list[list[str]] = []
    for index in range(len(lines)):
        line = lines[index]
        if line[:1] in (" ", "\t"):
            # Obsolete line folding: continue the previous field's value.
            if not fields:
                raise HttpParseError(
                    f"header line {index + 1} is a continuation with no preceding header"
                )
            fields[-1][1] = f"{fields[-1][1]} {line.strip()}"
            continue
        name, separator, value = line.partition(":")
        if not separator:
            raise HttpParseError(f"header line {index + 1} has no ':' separator: {line!r}")
        fields.append([name, value.strip()])
    if len(fields) > MAX_HEADER_COUNT:
        raise HttpParseError(f"too many headers: {len(fields)} (limit is {MAX_HEADER_COUNT})")
    headers = Headers()
    for name, value in fields:
        try:
            headers.add(name, value)
        except ValueError as exc:
            raise HttpParseError(str(exc)) from exc
    return headers


def _read_body(headers: Headers, rest: bytes) -> bytes:
    if "chunked" in (headers.get("Transfer-Encoding") or "").lower():
        body = decode_chunked(rest)
        headers.remove("Transfer-Encoding")
        headers.set("Content-Length", len(body))
        return body
    length_value = headers.get("Content-Length")
    if length_value is None:
        return rest
    try:
        length = int(length_value)
    except ValueError:
        raise HttpParseError(f"invalid Content-Length header: {length_value!r}") from None
    if length < 0:
        raise HttpParseError(f"Content-Length must not be negative, got {length}")
    if len(rest) < length:
        raise HttpParseError(
            f"body is truncated: Content-Length is {length} but only {len(rest)} bytes follow"
        )
    return rest[:length]


def parse_request(raw: bytes) -> Request:
    """Parse a complete HTTP/1.x request from *raw* bytes."""
    start_line, header_lines, rest = _split_message(raw)
    parts = start_line.split(" ")
    if len(parts) != 3:
        raise HttpParseError(f"malformed request line: {start_line!r}")
    method, target, version = parts
    if method not in SUPPORTED_METHODS:
        raise HttpParseError(f"unsupported method {method!r}")
    if not target:
        raise HttpParseError("request target must not be empty")
    if not version.startswith("HTTP/"):
        raise HttpParseError(f"invalid HTTP version {version!r}")
    headers = _parse_header_lines(header_lines)
    return Request(method, target, headers, _read_body(headers, rest), version)


def parse_response(raw: bytes) -> Response:
    """Parse a complete HTTP/1.x response from *raw* bytes."""
    start_line, header_lines, rest = _split_message(raw)
    parts = start_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise HttpParseError(f"malformed status line: {start_line!r}")
    version, status_text = parts[0], parts[1]
    reason = parts[2] if len(parts) == 3 else ""
    if not (len(status_text) == 3 and status_text.isdigit()):
        raise HttpParseError(f"invalid status code {status_text!r}")
    status = int(status_text)
    if not 100 <= status <= 599:
        raise HttpParseError(f"status code {status} is out of range 100-599")
    headers = _parse_header_lines(header_lines)
    return Response(status, headers, _read_body(headers, rest), reason, version)


def build_request(
    method: str,
    url: str,
    *,
    headers: HeaderSource = None,
    body: bytes = b"",
    json_body: Any = None,
    query: Mapping[str, Any] | None = None,
) -> Request:
    """Build a :class:`Request` for an absolute *url*.

    ``Host`` is filled in from the URL, *query* parameters are appended to any
    already present and *json_body* is serialised compactly with
    ``Content-Type: application/json``.
    """
    method = method.upper()
    if method not in SUPPORTED_METHODS:
        raise ValueError(
            f"unsupported HTTP method {method!r}; expected one of {', '.join(sorted(SUPPORTED_METHODS))}"
        )
    if body and json_body is not None:
        raise ValueError("pass either body or json_body, not both")
    if query:
        url = with_query(url, query)
    parts = split_url(url)
    request_headers = Headers(headers)
    request_headers.setdefault("Host", parts.host_header)
    if json_body is not None:
        body = json.dumps(json_body, sort_keys=True, separators=(",", ":")).encode("utf-8")
        request_headers.setdefault("Content-Type", "application/json")
    return Request(method, parts.target, request_headers, body)
