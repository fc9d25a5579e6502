"""Core event model shared by every part of hookshot.

An :class:`Event` is the unit that gets routed to handlers, validated against
schemas, serialised into webhook bodies and recorded in the delivery log.
Event names are dot-separated, e.g. ``order.created`` or ``order.item.added``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping

EVENT_NAME_SEPARATOR = "."
MAX_EVENT_NAME_LENGTH = 64
EVENT_ID_PREFIX = "evt_"
_ALLOWED_NAME_PUNCTUATION = frozenset("_-")


class EventError(ValueError):
    """Raised when an event, an event name or serialised event data is invalid."""


def new_event_id() -> str:
    """Return a fresh, random event identifier such as ``evt_3f2a...``."""
    return f"{EVENT_ID_PREFIX}{uuid.uuid4().hex}"


def validate_event_name(name: str) -> str:
    """Check that *name* is a well-formed event name and return it unchanged.

    A valid name is non-empty, at most :data:`MAX_EVENT_NAME_LENGTH`
    characters long and made of dot-separated segments containing only
    letters, digits, underscores and hyphens.
    """
    if not isinstance(name, str) or not name:
        raise EventError("event name must be a non-empty string")
    if len(name) > MAX_EVENT_NAME_LENGTH:
        raise EventError(
            f"event name is {len(name)} characters long; "
            f"the maximum is {MAX_EVENT_NAME_LENGTH}"
        )
    for index, segment in enumerate(name.split(EVENT_NAME_SEPARATOR)):
        if not segment:
            raise EventError(
                f"event name {name!r} has an empty segment at position {index}"
            )
        for char in segment:
            if not (char.isalnum() or char in _ALLOWED_NAME_PUNCTUATION):
                raise EventError(
                    f"event name {name!r} contains invalid character {char!r}; "
                    "only letters, digits, '_' and '-' are allowed"
                )
    return name


@dataclass(frozen=True)
class Event:
    """A named occurrence with a JSON-compatible payload.

    ``event_id`` is generated automatically when omitted so that every
    delivery can be correlated in the :mod:`hookshot.delivery_log`.
    """

    name: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    event_id: str = field(default_factory=new_event_id)
    occurred_at: float | None = None

    def __post_init__(self) -> None:
        validate_event_name(self.name)
        if not isinstance(self.payload, Mapping):
            raise EventError(
                f"payload of event {self.name!r} must be a mapping, "
                f"got {type(self.payload).__name__}"
            )
        if not self.event_id:
            raise EventError(f"event {self.name!r} has an empty event_id")

    @property
    def segments(self) -> tuple[str, ...]:
        """The dot-separated parts of the event name."""
        return tuple(self.name.split(EVENT_NAME_SEPARATOR))

    @property
    def namespace(self) -> str:
        """The first segment of the name, e.g. ``order`` for ``order.created``."""
        return self.segments[0]

    def to_dict(self) -> dict[str, Any]:
        """Return the wire representation used in webhook bodies."""
        return {
            "id": self.event_id,
            "event": self.name,
            "occurred_at": self.occurred_at,
            "payload": dict(self.payload),
        }

    def to_json(self) -> str:
        """Serialise the event to compact, key-sorted JSON.

        The output is canonical so that signatures computed over it are stable.
        """
        return json.dumps(
            self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )

    def to_bytes(self) -> bytes:
        """Return :meth:`to_json` encoded as UTF-8, ready to be used as a body."""
        return self.to_json().encode("utf-8")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Build an event from its wire representation (see :meth:`to_dict`)."""
        if not isinstance(data, Mapping):
            raise EventError(f"expected a JSON object, got {type(data).__name__}")
        if "event" not in data:
            raise EventError("event data is missing the 'event' field")
        payload = data.get("payload", {})
        if payload is None:
            payload = {}
        occurred_at = data.get("occurred_at")
        kwargs: dict[str, Any] = {
            "name": data["event"],
            "payload": payload,
            "occurred_at": float(occurred_at) if occurred_at is not None else None,
        }
        if data.get("id"):
            kwargs["event_id"] = str(data["id"])
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str | bytes) -> Event:
        """Parse an event from JSON text or UTF-8 bytes."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EventError(
                f"invalid event JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from exc
        except UnicodeDecodeError as exc:
            raise EventError("event JSON is not valid UTF-8") from exc
        return cls.from_dict(data)
