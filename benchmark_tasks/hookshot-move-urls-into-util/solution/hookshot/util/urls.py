"""URL and query-string helpers.

These helpers deliberately stay small: they cover what webhook delivery needs
(splitting endpoint URLs, building request targets, encoding and decoding
query strings) without pulling in a full URL library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Union
from urllib.parse import quote, urlsplit

DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443}
PATH_SAFE_CHARS = "-._~"

QueryValue = Union[str, int, float, bool, None, Sequence[Union[str, int, float, bool]]]


class UrlError(ValueError):
    """Raised when a URL cannot be used as a webhook endpoint."""


@dataclass(frozen=True)
class UrlParts:
    """The components of an absolute ``http``/``https`` URL."""

    scheme: str
    host: str
    port: int
    path: str = "/"
    query: str = ""
    fragment: str = ""

    @property
    def is_default_port(self) -> bool:
        """True when :attr:`port` is the default port for :attr:`scheme`."""
        return DEFAULT_PORTS.get(self.scheme) == self.port

    @property
    def host_header(self) -> str:
        """The value to send in the ``Host`` header."""
        return self.host if self.is_default_port else f"{self.host}:{self.port}"

    @property
    def target(self) -> str:
        """The request target: path plus query string, without the fragment."""
        return f"{self.path}?{self.query}" if self.query else self.path

    def geturl(self) -> str:
        """Reassemble the URL, omitting the port when it is the default."""
        url = f"{self.scheme}://{self.host_header}{self.target}"
        return f"{url}#{self.fragment}" if self.fragment else url


def split_url(url: str) -> UrlParts:
    """Split an absolute ``http`` or ``https`` URL into :class:`UrlParts`."""
    parsed = urlsplit(url)
    scheme = parsed.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UrlError(
            f"unsupported URL scheme {parsed.scheme!r} in {url!r}; "
            "expected http or https"
        )
    if not parsed.hostname:
        raise UrlError(f"URL {url!r} has no host")
    try:
        port = parsed.port
    except ValueError as exc:
        raise UrlError(f"URL {url!r} has an invalid port") from exc
    return UrlParts(
        scheme=scheme,
        host=parsed.hostname,
        port=port if port is not None else DEFAULT_PORTS[scheme],
        path=parsed.path or "/",
        query=parsed.query,
        fragment=parsed.fragment,
    )


def percent_decode(text: str, *, plus_as_space: bool = False) -> str:
    """Decode ``%XX`` escapes in *text*.

    Malformed escapes (a ``%`` not followed by two hex digits) are kept
    literally instead of raising, matching how browsers treat them. Decoded
    bytes are interpreted as UTF-8 with invalid sequences replaced.
    """
    buffer = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char == "%" and index + 2 < len(text):
            hex_digits = text[index + 1 : index + 3]
            try:
                buffer.append(int(hex_digits, 16))
            except ValueError:
                buffer.extend(b"%")
                index += 1
            else:
                index += 3
            continue
        if char == "+" and plus_as_space:
            buffer.extend(b" ")
        else:
            buffer.extend(char.encode("utf-8"))
        index += 1
    return buffer.decode("utf-8", errors="replace")


def parse_query(query: str) -> dict[str, list[str]]:
    """Parse a query string into a mapping of names to lists of values.

    A leading ``?`` is ignored, ``+`` decodes to a space, names without a
    value map to an empty string and repeated names keep every value in order.
    """
    if query.startswith("?"):
        query = query[1:]
    result: dict[str, list[str]] = {}
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        decoded_name = percent_decode(name, plus_as_space=True)
        result.setdefault(decoded_name, []).append(
            percent_decode(value, plus_as_space=True)
        )
    return result


def _stringify(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def encode_query(params: Mapping[str, QueryValue]) -> str:
    """Encode *params* as a query string.

    Sequence values produce one ``name=value`` pair per item, booleans are
    written as ``true``/``false`` and ``None`` values are skipped.
    """
    pairs: list[str] = []
    for name, value in params.items():
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            pairs.append(f"{quote(str(name), safe='')}={quote(_stringify(item), safe='')}")
    return "&".join(pairs)


def with_query(url: str, params: Mapping[str, QueryValue]) -> str:
    """Return *url* with *params* appended to its query string.

    Existing parameters are kept and any ``#fragment`` stays at the end.
    """
    encoded = encode_query(params)
    if not encoded:
        return url
    base, has_fragment, fragment = url.partition("#")
    if "?" not in base:
        joiner = "?"
    elif base.endswith(("?", "&")):
        joiner = ""
    else:
        joiner = "&"
    result = f"{base}{joiner}{encoded}"
    return f"{result}#{fragment}" if has_fragment else result


def join_path(base: str, *segments: str) -> str:
    """Join URL path *segments* onto *base*, percent-encoding each segment.

    >>> join_path("/hooks/", "orders", "A 1")
    '/hooks/orders/A%201'
    """
    path = base.rstrip("/")
    for segment in segments:
        cleaned = segment.strip("/")
        if cleaned:
            path = f"{path}/{quote(cleaned, safe=PATH_SAFE_CHARS)}"
    return path or "/"
