"""Why a replay found no recording: the recorded request nearest the one asked, and the fields that differ.

A miss that only names a key leaves its reader to compare kilobytes of JSON by hand, with the request
that missed gone. The nearest recording is the one that shares the longest conversation (messages, or
a Responses ``input``, compared in order), then the fewest differing fields. The differences are
listed by field: messages by index, tools by name, every other key by its path, and for two strings
where they part.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.input_files import read_bounded

SHOWN = 8
"""Differences listed in a message; the rest are counted."""
CONTEXT = 24
"""Characters shown either side of where two strings part."""
CONVERSATIONS = ("messages", "input")


def explain(folder: Path, asked: Any) -> str:
    """The nearest recording in ``folder`` to ``asked`` and how they differ, as a clause to append to a miss."""
    nearest: tuple[tuple[int, int], str, list[str]] | None = None
    for path in sorted(folder.glob("*.json")):
        recorded = _request(path)
        if recorded is None:
            continue
        found = differences(recorded, asked)
        score = (_shared(recorded, asked), -len(found))
        if nearest is None or score > nearest[0]:
            nearest = (score, path.stem, found)
    if nearest is None:
        return "; the folder holds no recording"
    (shared, _), key, found = nearest
    listed = "; ".join(found[:SHOWN]) + (f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
    return f"; nearest recording {key} (the same first {shared} messages) differs in: {listed}"


def differences(recorded: Any, asked: Any, where: str = "") -> list[str]:
    """One line per differing field, from the recording's side to the asked request's."""
    if recorded == asked:
        return []
    if isinstance(recorded, dict) and isinstance(asked, dict):
        return [line for key in sorted(recorded.keys() | asked.keys()) for line in _field(recorded, asked, key, where)]
    if isinstance(recorded, list) and isinstance(asked, list):
        if where.rpartition(".")[2] == "tools" and _named(recorded) and _named(asked):
            return _tools(recorded, asked, where)
        return _items(recorded, asked, where)
    if isinstance(recorded, str) and isinstance(asked, str):
        return [f"{where or 'the request'}: {_parting(recorded, asked)}"]
    return [f"{where or 'the request'}: {_short(recorded)} in the recording, {_short(asked)} asked"]


def _field(recorded: dict[str, Any], asked: dict[str, Any], key: str, where: str) -> list[str]:
    path = f"{where}.{key}" if where else key
    if key not in asked:
        return [f"{path}: only in the recording"]
    if key not in recorded:
        return [f"{path}: only in the request asked"]
    return differences(recorded[key], asked[key], path)


def _items(recorded: list[Any], asked: list[Any], where: str) -> list[str]:
    lines = [line for i, (a, b) in enumerate(zip(recorded, asked)) for line in differences(a, b, f"{where}[{i}]")]
    if len(recorded) != len(asked):
        lines.append(f"{where}: {len(recorded)} items in the recording, {len(asked)} asked")
    return lines


def _tools(recorded: list[Any], asked: list[Any], where: str) -> list[str]:
    before, after = {_name(t): t for t in recorded}, {_name(t): t for t in asked}
    lines = [f"{where}[{n}]: only in the recording" for n in before if n not in after]
    lines += [f"{where}[{n}]: only in the request asked" for n in after if n not in before]
    lines += [line for n in before if n in after for line in differences(before[n], after[n], f"{where}[{n}]")]
    if not lines:
        lines.append(f"{where}: the same tools in another order")
    return lines


def _named(tools: list[Any]) -> bool:
    return all(isinstance(t, dict) and _name(t) for t in tools)


def _name(tool: dict[str, Any]) -> str:
    function = tool.get("function")
    return str((function if isinstance(function, dict) else tool).get("name") or "")


def _parting(recorded: str, asked: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(recorded, asked)) if a != b), min(len(recorded), len(asked)))
    start = max(at - CONTEXT, 0)
    return (
        f"parts at character {at}: {recorded[start : at + CONTEXT]!r} in the recording, "
        f"{asked[start : at + CONTEXT]!r} asked"
    )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 2 * CONTEXT else f"{text[: 2 * CONTEXT]}..."


def _shared(recorded: Any, asked: Any) -> int:
    """How many messages the two conversations share from their start."""
    first, second = _conversation(recorded), _conversation(asked)
    return next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))


def _conversation(request: Any) -> list[Any]:
    """The request's conversation: at its top, or in the ``body`` of a host's request."""
    for holder in (request, request.get("body") if isinstance(request, dict) else None):
        if isinstance(holder, dict):
            for key in CONVERSATIONS:
                if isinstance(holder.get(key), list):
                    return list(holder[key])
    return []


def _request(path: Path) -> Any:
    """A recording's request, or None for a file that is not one (a miss explains itself best-effort)."""
    try:
        data = json.loads(read_bounded(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data.get("request") if isinstance(data, dict) else None
