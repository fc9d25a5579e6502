"""The MCP server's audit log: one JSON line per event, readable by ``granularity report``.

The first line names the format and the session (workspace, in place or a copy, policy). Then
every ``start_task`` (mode and why), every tool call (arguments, result, state, the machine's
transitions it caused, the tools offered after it), every refused call, and, when a task ends,
its run record in the shape of a benchmark run (``RunResult``: transitions, macro log, failure
class, tokens). ``granularity report`` reads those records as it reads a saved report, so a
served session gets the same tables, macro audit and failure classes as a benchmark run. Each
line is flushed when written: a server that is killed keeps every event up to its last call.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import InputError
from .input_files import read_bounded
from .result import RunResult

AUDIT_FORMAT = "pytest-granularity mcp audit"
AUDIT_VERSION = 1
RUN_EVENT = "run"


class AuditLog:
    """Appends events to a JSONL file; several sessions may share one file."""

    def __init__(self, path: Path, session: dict[str, Any]) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf-8")
        self.write("session", format=AUDIT_FORMAT, version=AUDIT_VERSION, **session)

    def write(self, event: str, **fields: Any) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        self._file.write(
            json.dumps({"event": event, "time": stamp, **fields}, ensure_ascii=False, sort_keys=True) + "\n"
        )
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def is_audit_log(path: Path) -> bool:
    """Whether ``path`` is an audit log (its first line names the format), not a report's run records."""
    try:
        first = json.loads(read_bounded(path).split(b"\n", 1)[0])
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and first.get("format") == AUDIT_FORMAT


def audit_records(path: Path) -> list[RunResult]:
    """The run records of every task that ended in the log, in the order they ended."""
    records = []
    for number, line in enumerate(read_bounded(path).decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{path}:{number}: not a JSON line: {exc}") from None
        if event.get("event") == "session" and event.get("version") != AUDIT_VERSION:
            raise InputError(f"{path}:{number}: field 'version': {event.get('version')!r} is not {AUDIT_VERSION}")
        if event.get("event") == RUN_EVENT:
            try:
                records.append(RunResult.from_dict(event["record"]))
            except (KeyError, TypeError) as exc:
                raise InputError(f"{path}:{number}: field 'record': not a run record ({exc})") from None
    return records
