"""A bounded log of webhook delivery attempts, persistable as JSON lines.

Every attempt a :class:`~hookshot.transport.sender.Deliverer` makes is
recorded here, which makes it easy to answer "what happened to event X?" or
to report failure rates per endpoint.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Iterator, Mapping

import hookshot.events

DEFAULT_LOG_CAPACITY = 1000


class DeliveryStatus(str, Enum):
    """Outcome of a single delivery attempt."""

    SUCCEEDED = "succeeded"
    RETRYING = "retrying"  # the attempt failed and another will follow
    FAILED = "failed"  # the attempt failed and no retry will be made


def utc_now() -> float:
    """Return the current Unix time; patched in tests for stable timestamps."""
    return time.time()


@dataclass(frozen=True)
class DeliveryAttempt:
    """One recorded delivery attempt."""

    event_id: str
    event_name: str
    url: str
    attempt: int
    status: DeliveryStatus
    status_code: int | None = None
    error: str | None = None
    recorded_at: float = 0.0
    duration: float | None = None  # seconds the transport call took, if measured

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-compatible representation."""
        data = asdict(self)
        data["status"] = self.status.value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DeliveryAttempt:
        """Rebuild an attempt from :meth:`to_dict` output."""
        if not isinstance(data, Mapping):
            raise ValueError(f"delivery log entry must be an object, got {type(data).__name__}")
        try:
            return cls(
                event_id=str(data["event_id"]),
                event_name=str(data["event_name"]),
                url=str(data["url"]),
                attempt=int(data["attempt"]),
                status=DeliveryStatus(data["status"]),
                status_code=data.get("status_code"),
                error=data.get("error"),
                recorded_at=float(data.get("recorded_at", 0.0)),
                duration=None if data.get("duration") is None else float(data["duration"]),
            )
        except KeyError as exc:
            raise ValueError(f"delivery log entry is missing field {exc.args[0]!r}") from None


class DeliveryLog:
    """An in-memory, capacity-bounded list of :class:`DeliveryAttempt`.

    When the log is full the oldest entries are discarded first.
    """

    def __init__(self, capacity: int = DEFAULT_LOG_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._entries: list[DeliveryAttempt] = []

    def _append(self, entry: DeliveryAttempt) -> None:
        self._entries.append(entry)
        overflow = len(self._entries) - self.capacity
        if overflow > 0:
            del self._entries[:overflow]

    def record(
        self,
        event: hookshot.events.Event,
        url: str,
        attempt: int,
        status: DeliveryStatus | str,
        *,
        status_code: int | None = None,
        error: str | None = None,
        duration: float | None = None,
    ) -> DeliveryAttempt:
        """Record one attempt to deliver *event* to *url* and return the entry.

        *duration* is how long the attempt took, in seconds, when it was measured.
        """
        if attempt < 1:
            raise ValueError(f"attempt numbers start at 1, got {attempt}")
        entry = DeliveryAttempt(
            event_id=event.event_id,
            event_name=event.name,
            url=url,
            attempt=attempt,
            status=DeliveryStatus(status),
            status_code=status_code,
            error=error,
            recorded_at=utc_now(),
            duration=duration,
        )
        self._append(entry)
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[DeliveryAttempt]:
        return iter(list(self._entries))

    def attempts_for(self, event_id: str) -> list[DeliveryAttempt]:
        """Return every recorded attempt for *event_id*, oldest first."""
        return [entry for entry in self._entries if entry.event_id == event_id]

    def last_status(self, event_id: str) -> DeliveryStatus | None:
        """Return the status of the most recent attempt for *event_id*."""
        for index in range(len(self._entries) - 1, -1, -1):
            if self._entries[index].event_id == event_id:
                return self._entries[index].status
        return None

    def latest(self, count: int = 10) -> list[DeliveryAttempt]:
        """Return the *count* most recent entries, oldest first."""
        if count <= 0:
            return []
        start = max(len(self._entries) - count, 0)
        return self._entries[start:]

    def failures(self) -> list[DeliveryAttempt]:
        """Return the attempts that ended a delivery unsuccessfully."""
        return [entry for entry in self._entries if entry.status is DeliveryStatus.FAILED]

    def summary(self) -> dict[str, int]:
        """Count entries per status, including statuses with zero entries."""
        counts = {status.value: 0 for status in DeliveryStatus}
        for entry in self._entries:
            counts[entry.status.value] += 1
        return counts

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def to_jsonl(self) -> str:
        """Serialise the log as JSON lines, one attempt per line."""
        return "".join(
            json.dumps(entry.to_dict(), sort_keys=True) + "\n" for entry in self._entries
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the log to *path* as JSON lines."""
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], capacity: int = DEFAULT_LOG_CAPACITY
    ) -> DeliveryLog:
        """Read a log written by :meth:`save`. Blank lines are ignored."""
        log = cls(capacity)
        text = Path(path).read_text(encoding="utf-8")
        for line_number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                log._append(DeliveryAttempt.from_dict(data))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{line_number}: invalid JSON: {exc.msg}") from exc
            except ValueError as exc:
                raise ValueError(f"{path}:{line_number}: {exc}") from exc
        return log
