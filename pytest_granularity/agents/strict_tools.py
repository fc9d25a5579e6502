"""Tools as strict functions (OpenAI's structured outputs), for servers that can hold a call to its schema.

A strict function's arguments always parse and always match its parameters, but the API accepts a
schema only in a subset of JSON Schema: every object closed (``additionalProperties: false``), every
property listed in ``required``, and a short list of keywords. So an optional property becomes
required but nullable (``anyOf`` with ``null``), and a null answer for it is read as "not given"
(:func:`without_nulls`); keywords outside the subset are left out of what is sent, which loses
nothing, since the harness checks every call against the tool's full schema anyway. A tool whose
parameters are a whole-object ``enum`` (a macro's constrained suggestions) has no strict form, and
goes out as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..core.transcript import ToolCall

KEPT = frozenset({"type", "description", "properties", "required", "additionalProperties", "items", "enum", "anyOf"})
KEPT |= {"const", "minimum", "maximum", "minItems", "maxItems", "pattern", "format"}
"""The keywords a strict schema may hold that the tools use (OpenAI's "supported schemas")."""


def strict_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """``tool`` as a strict function, or as it is when its parameters have no strict form."""
    parameters = tool["function"].get("parameters") or {"type": "object", "properties": {}}
    if "enum" in parameters:
        return tool
    return {**tool, "function": {**tool["function"], "parameters": _strict(parameters), "strict": True}}


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in schema.items() if k in KEPT}
    if "items" in kept:
        kept["items"] = _strict(kept["items"])
    if "anyOf" in kept:
        kept["anyOf"] = [_strict(s) for s in kept["anyOf"]]
    if schema.get("type") != "object":
        return kept
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    kept["properties"] = {
        name: _strict(p) if name in required else {"anyOf": [_strict(p), {"type": "null"}]}
        for name, p in properties.items()
    }
    kept["required"] = list(properties)
    kept["additionalProperties"] = False
    return kept


def without_nulls(call: ToolCall, tools: Sequence[dict[str, Any]]) -> ToolCall:
    """``call`` less the null arguments its tool does not require: a strict function's way of leaving one out."""
    schema = next((t["function"].get("parameters") or {} for t in tools if t["function"]["name"] == call.name), {})
    required = set(schema.get("required") or ())
    given = {k: v for k, v in call.arguments.items() if v is not None or k in required}
    return call if given == call.arguments else replace(call, arguments=given)
