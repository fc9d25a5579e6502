"""An in-memory transport for tests, dry runs and local development."""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Union

from ..http import Request, Response, parse_request
from hookshot.transport.protocol import TransportError

Scripted = Union[Response, Exception, Callable[[Request], Response]]


class MemoryTransport:
    """Records requests and answers them from a script of responses.

    Each call consumes the next scripted item: a :class:`Response` is
    returned, an exception is raised and a callable is called with the
    request. When the script runs out, *default* is returned if given;
    otherwise a non-retryable :class:`TransportError` is raised.

    Requests are round-tripped through the wire format before being stored,
    so :attr:`requests` holds exactly what a real transport would have sent.
    """

    def __init__(self, responses: Iterable[Scripted] = (), *, default: Response | None = None) -> None:
        self._script: deque[Scripted] = deque(responses)
        self.default = default
        self.requests: list[Request] = []
        self.timeouts: list[float] = []

    def queue(self, *responses: Scripted) -> None:
        """Append items to the script."""
        self._script.extend(responses)

    @property
    def pending(self) -> int:
        """Number of scripted items not yet consumed."""
        return len(self._script)

    @property
    def last_request(self) -> Request | None:
        """The most recently sent request, if any."""
        return self.requests[-1] if self.requests else None

    def __call__(self, request: Request, timeout: float) -> Response:
        self.requests.append(parse_request(request.to_bytes()))
        self.timeouts.append(timeout)
        if self._script:
            item = self._script.popleft()
        elif self.default is not None:
            item = self.default
        else:
            raise TransportError(
                f"MemoryTransport has no scripted response for request "
                f"#{len(self.requests)} ({request.method} {request.target})",
                retryable=False,
            )
        if isinstance(item, Exception):
            raise item
        if isinstance(item, Response):
            return item
        return item(request)
