"""Pluggable transports and the deliverer that drives them.

hookshot ships no network transport: applications pass any callable matching
:class:`~hookshot.transport.base.Transport` (for example a thin wrapper
around their HTTP client). :class:`MemoryTransport` is provided for tests.
"""

from hookshot.transport.protocol import DEFAULT_TIMEOUT, Transport, TransportError, TransportTimeout
from .memory import MemoryTransport
from .sender import (
    ATTEMPT_HEADER,
    DELIVERY_HEADER,
    EVENT_HEADER,
    Deliverer,
    DeliveryOutcome,
)

__all__ = [
    "ATTEMPT_HEADER",
    "DEFAULT_TIMEOUT",
    "DELIVERY_HEADER",
    "EVENT_HEADER",
    "Deliverer",
    "DeliveryOutcome",
    "MemoryTransport",
    "Transport",
    "TransportError",
    "TransportTimeout",
]
