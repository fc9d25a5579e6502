"""Pytest settings merged into a repository's ``pyproject.toml`` without clobbering what is there.

The file is edited as text (comments and layout kept): new keys go right under the ``[tool.pytest.ini_options]``
header, a list or option string that must grow is rewritten on its own line, and the result is parsed again and
must equal the old settings with only the intended changes, else nothing is written.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import InputError

HEADER = "[tool.pytest.ini_options]"


@dataclass(frozen=True)
class Addition:
    """What to merge: keys to set (``force`` replaces a different value), an option appended to ``addopts`` and
    a path appended to ``testpaths`` (when the project lists its test paths)."""

    keys: Mapping[str, str]
    option: str
    testpath: str


def merged(text: str, addition: Addition, force: bool) -> str:
    """``text`` (a pyproject.toml, possibly empty) with ``addition`` merged into its pytest settings."""
    document = _parse(text)
    table = document.get("tool", {}).get("pytest", {}).get("ini_options")
    if table is None:
        block = "\n".join(f"{key} = {_value(value)}" for key, value in _wanted(addition, {}, force).items())
        return f"{text.rstrip()}\n\n{HEADER}\n{block}\n".lstrip()
    changes = _wanted(addition, table, force)
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if line.strip() == HEADER), None)
    if header is None:
        raise InputError(f"pyproject.toml: its pytest settings are not under a '{HEADER}' line; add the keys by hand")
    new = [f"{key} = {_value(value)}\n" for key, value in changes.items() if key not in table]
    for key in (k for k in changes if k in table):
        number = _line_of(lines, header, key)
        lines[number] = f"{key} = {_value(changes[key])}{_comment(lines[number])}\n"
    result = "".join(lines[: header + 1] + new + lines[header + 1 :])
    expected = {**table, **changes}
    if _parse(result).get("tool", {}).get("pytest", {}).get("ini_options") != expected:
        raise InputError(f"pyproject.toml: could not merge {sorted(changes)} into {HEADER}; add them by hand")
    return result


def _wanted(addition: Addition, table: Mapping[str, Any], force: bool) -> dict[str, Any]:
    """The keys that change, with their new values; a key set to something else is refused unless ``force``."""
    changes: dict[str, Any] = {}
    for key, value in addition.keys.items():
        if key in table and table[key] != value and not force:
            raise InputError(f"pyproject.toml: {key} is already {table[key]!r}; --force replaces it with {value!r}")
        if table.get(key) != value:
            changes[key] = value
    addopts = table.get("addopts", "")
    options = addopts if isinstance(addopts, list) else addopts.split()
    if not any(o.split("=")[0] == addition.option.split("=")[0] for o in options):
        changes["addopts"] = (
            [*addopts, addition.option] if isinstance(addopts, list) else f"{addopts} {addition.option}".strip()
        )
    testpaths = table.get("testpaths")
    if testpaths is not None and addition.testpath not in testpaths:
        changes["testpaths"] = [*testpaths, addition.testpath]
    return changes


def _line_of(lines: list[str], header: int, key: str) -> int:
    """The line of ``key`` in the table under ``header``, when its value is on that line alone."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(header + 1, len(lines)):
        if lines[i].lstrip().startswith("["):
            break
        if pattern.match(lines[i]) and _parses(lines[i]):
            return i
    raise InputError(f"pyproject.toml: {key} is not on a line of its own under {HEADER}; add to it by hand")


def _comment(line: str) -> str:
    """The comment that ends a ``key = value`` line (kept when the value is rewritten), or nothing."""
    for at in (i for i, c in enumerate(line) if c == "#"):
        if _parses(line[:at]) and tomllib.loads(line[:at]) == tomllib.loads(line):
            return "  " + line[at:].strip()
    return ""


def _value(value: str | list[str]) -> str:
    """A TOML string or list of strings (JSON's escapes are TOML's)."""
    return json.dumps(value)


def _parses(line: str) -> bool:
    try:
        tomllib.loads(line)
        return True
    except tomllib.TOMLDecodeError:
        return False


def _parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"pyproject.toml: not valid TOML ({exc})") from None
