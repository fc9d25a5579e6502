"""hookshot: a small, socket-free toolkit for sending and receiving webhooks.

The main pieces are:

* :mod:`hookshot.events` - the :class:`Event` model;
* :mod:`hookshot.http` - building and parsing HTTP messages without sockets;
* :mod:`hookshot.signing` - HMAC signatures for webhook payloads;
* :mod:`hookshot.router` - dispatching events to handlers by name pattern;
* :mod:`hookshot.retry` - retry/backoff policies;
* :mod:`hookshot.delivery_log` - a log of delivery attempts;
* :mod:`hookshot.schema` - payload validation;
* :mod:`hookshot.config` - loading settings from ``hookshot.ini``;
* :mod:`hookshot.transport` - the deliverer and pluggable transports.
"""

from .config import ConfigError, Settings, load_config
from .delivery_log import DeliveryLog, DeliveryStatus
from .events import Event, EventError
from .http import (
    Headers,
    HttpParseError,
    Request,
    Response,
    build_request,
    parse_request,
    parse_response,
)
from .retry import RetryPolicy
from .router import EventRouter, match_pattern
from .schema import SchemaError, SchemaRegistry, validate
from .signing import SignatureError, sign_payload, verify_request, verify_signature
from .transport import Deliverer, MemoryTransport, TransportError

__version__ = "0.5.0"

__all__ = [
    "ConfigError",
    "Deliverer",
    "DeliveryLog",
    "DeliveryStatus",
    "Event",
    "EventError",
    "EventRouter",
    "Headers",
    "HttpParseError",
    "MemoryTransport",
    "Request",
    "Response",
    "RetryPolicy",
    "SchemaError",
    "SchemaRegistry",
    "Settings",
    "SignatureError",
    "TransportError",
    "build_request",
    "load_config",
    "match_pattern",
    "parse_request",
    "parse_response",
    "sign_payload",
    "validate",
    "verify_request",
    "verify_signature",
    "__version__",
]
