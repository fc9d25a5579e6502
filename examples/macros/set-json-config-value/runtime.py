"""set_json_config_value: set an existing key (dotted path) in a JSON file to a JSON value."""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import test_problems
from pytest_granularity.macros.kit import existing_file

_INDENT = re.compile(r"^([ \t]+)\S", re.M)
_MISSING = object()


def _dump(data: Any, text: str) -> str:
    """The data written in the layout of ``text``: its indentation, ASCII escaping and final newline."""
    found = _INDENT.search(text)
    indent = found.group(1) if found else None
    ascii_only = all(ord(c) < 128 for c in text)
    out = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    return out + "\n" if text.endswith("\n") else out


def _lookup(data: Any, key: str) -> tuple[Any, Any, str | None]:
    """The container holding the last segment, the segment as key or index, or why the path is missing."""
    parts = key.split(".")
    node = data
    container: Any
    segment: Any
    for depth, part in enumerate(parts):
        where = ".".join(parts[: depth + 1])
        if isinstance(node, dict) and part in node:
            container, segment = node, part
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            container, segment = node, int(part)
        else:
            return None, None, f"the path {where} does not exist"
        node = container[segment]
    return container, segment, None


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _load(ctx: MacroContext) -> tuple[str, Any, list[str]]:
    rel = ctx.args["file"]
    path, reasons = existing_file(ctx, rel)
    if path is None:
        return "", _MISSING, reasons
    text = path.read_text(encoding="utf-8")
    try:
        return text, json.loads(text), []
    except json.JSONDecodeError as exc:
        return text, _MISSING, [f"{rel} is not valid JSON ({exc})"]


def preconditions(ctx: MacroContext) -> list[str]:
    text, data, reasons = _load(ctx)
    if data is _MISSING:
        return reasons
    container, segment, missing = _lookup(data, ctx.args["key"])
    if missing:
        return [f"{ctx.args['file']}: {missing} (the macro never adds keys)"]
    if _same(container[segment], ctx.args["value"]):
        reasons.append(f"{ctx.args['key']} already holds that value")
    if _dump(data, text) != text:
        reasons.append(f"{ctx.args['file']} is not in the layout the macro writes back; a rewrite would reformat it")
    return reasons


def run(ctx: MacroContext) -> str:
    text, data, reasons = _load(ctx)
    if data is _MISSING:
        raise MacroError("; ".join(reasons))
    container, segment, missing = _lookup(data, ctx.args["key"])
    if missing:
        raise MacroError(missing)
    previous = container[segment]
    container[segment] = ctx.args["value"]
    ctx.path(ctx.args["file"]).write_text(_dump(data, text), encoding="utf-8")
    return f"set {ctx.args['key']} in {ctx.args['file']} from {json.dumps(previous)} to {json.dumps(ctx.args['value'])}"


def validate(ctx: MacroContext) -> list[str]:
    _, data, problems = _load(ctx)
    if data is _MISSING:
        return problems
    container, segment, missing = _lookup(data, ctx.args["key"])
    if missing or not _same(container[segment], ctx.args["value"]):
        return [f"{ctx.args['file']} does not hold the value at {ctx.args['key']}"]
    return test_problems(ctx)
