"""The transport protocol that delivery is built on.

A transport is any callable taking a :class:`~hookshot.http.Request` and a
timeout in seconds and returning a :class:`~hookshot.http.Response`. It
raises :class:`TransportError` when no response could be obtained at all.
Keeping this seam tiny is what lets hookshot stay free of sockets.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..http import Request, Response

DEFAULT_TIMEOUT_SECONDS = 10.0


class TransportError(Exception):
    """No response could be obtained (connection refused, DNS failure, ...).

    ``retryable`` tells the deliverer whether trying again could help.
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class TransportTimeout(TransportError):
    """The endpoint did not answer within the timeout."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"no response within {timeout:g} seconds", retryable=True)
        self.timeout = timeout


@runtime_checkable
class Transport(Protocol):
    """Structural type of a transport callable."""

    def __call__(self, request: Request, timeout: float) -> Response:
        """Send *request* and return the response."""
        ...
