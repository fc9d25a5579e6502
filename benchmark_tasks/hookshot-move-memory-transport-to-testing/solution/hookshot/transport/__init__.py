"""Pluggable transports and the deliverer that drives them.

hookshot ships no network transport: applications pass any callable matching
:class:`~hookshot.transport.base.Transport` (for example a thin wrapper
around their HTTP client). :class:`MemoryTransport` is provided for tests;
:func:`builtin_transport` creates the bundled transports by name.
"""

import importlib
from typing import Any

from .base import DEFAULT_TIMEOUT, Transport, TransportError, TransportTimeout
from hookshot.testing.memory import MemoryTransport
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
    "builtin_transport",
]


#: Transports shipped with hookshot, by the short name used in configuration files:
#: the module that defines each one and the class to instantiate.
BUILTIN_TRANSPORTS: dict[str, tuple[str, str]] = {
    "memory": ("hookshot.testing.memory", "MemoryTransport"),
}


def builtin_transport(name: str, *args: Any, **kwargs: Any) -> Transport:
    """Create one of the transports shipped with hookshot from its short *name*.

    The transport's module is imported on first use, so optional transports cost
    nothing until they are asked for.
    """
    try:
        module_name, class_name = BUILTIN_TRANSPORTS[name]
    except KeyError:
        known = ", ".join(sorted(BUILTIN_TRANSPORTS))
        raise ValueError(f"unknown transport {name!r}; expected one of: {known}") from None
    module = importlib.import_module(module_name)
    return getattr(module, class_name)(*args, **kwargs)
