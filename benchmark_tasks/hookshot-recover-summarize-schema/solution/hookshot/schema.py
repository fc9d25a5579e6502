"""Validate event payloads against a small subset of JSON Schema.

Supported keywords: ``type``, ``enum``, ``required``, ``properties``,
``additionalProperties`` (boolean only), ``items``, ``minItems``,
``maxItems``, ``minLength``, ``maxLength``, ``minimum`` and ``maximum``.
Violations are reported with JSONPath-like locations such as
``$.items[1].quantity``.

Public API of hookshot.schema:

- class SchemaViolation(path: str, message: str): One place where a payload does not match its schema.
- class SchemaError(violations: list[SchemaViolation], event_name: str | None=None): Raised when a payload fails validation; carries every violation.
- def json_type_name(value: Any) -> str: Return the JSON type name of a decoded JSON *value*.
- def validate(payload: Any, schema: Schema, path: str=ROOT_PATH) -> list[SchemaViolation]: Return every violation of *schema* by *payload* (empty when valid).
- class SchemaRegistry(schemas: Mapping[str, Schema] | None=None): Maps event names to payload schemas and validates events against them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from . import events

ROOT_PATH = "$"
JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
SUPPORTED_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "description",
    }
)

Schema = Mapping[str, Any]


@dataclass(frozen=True)
class SchemaViolation:
    """One place where a payload does not match its schema."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SchemaError(ValueError):
    """Raised when a payload fails validation; carries every violation."""

    def __init__(self, violations: list[SchemaViolation], event_name: str | None = None) -> None:
        self.violations = list(violations)
        self.event_name = event_name
        subject = f"payload for event {event_name!r}" if event_name else "payload"
        details = "; ".join(str(violation) for violation in self.violations)
        super().__init__(
            f"{subject} failed validation with {len(self.violations)} error(s): {details}"
        )


def json_type_name(value: Any) -> str:
    """Return the JSON type name of a decoded JSON *value*."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    for name, types in JSON_TYPES.items():
        if isinstance(value, types):
            return name
    return type(value).__name__


def _matches_type(value: Any, type_name: str) -> bool:
    if type_name not in JSON_TYPES:
        raise ValueError(
            f"unknown schema type {type_name!r}; expected one of {', '.join(sorted(JSON_TYPES))}"
        )
    if isinstance(value, bool) and type_name in ("integer", "number"):
        return False
    return isinstance(value, JSON_TYPES[type_name])


def validate(payload: Any, schema: Schema, path: str = ROOT_PATH) -> list[SchemaViolation]:
    """Return every violation of *schema* by *payload* (empty when valid)."""
    violations: list[SchemaViolation] = []
    _validate_node(payload, schema, path, violations)
    return violations


def _validate_node(value: Any, schema: Schema, path: str, out: list[SchemaViolation]) -> None:
    unknown = set(schema) - SUPPORTED_KEYWORDS
    if unknown:
        raise ValueError(f"unsupported schema keyword(s) at {path}: {', '.join(sorted(unknown))}")

    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_matches_type(value, name) for name in names):
            out.append(
                SchemaViolation(path, f"expected {' or '.join(names)}, got {json_type_name(value)}")
            )
            return

    if "enum" in schema and value not in schema["enum"]:
        out.append(SchemaViolation(path, f"value {value!r} is not one of {list(schema['enum'])!r}"))

    if isinstance(value, str):
        _check_bounds(len(value), schema, "minLength", "maxLength", "length", path, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_bounds(value, schema, "minimum", "maximum", "value", path, out)
    elif isinstance(value, dict):
        _validate_object(value, schema, path, out)
    elif isinstance(value, list):
        _validate_array(value, schema, path, out)


def _check_bounds(
    measured: float,
    schema: Schema,
    low_key: str,
    high_key: str,
    label: str,
    path: str,
    out: list[SchemaViolation],
) -> None:
    if low_key in schema and measured < schema[low_key]:
        out.append(SchemaViolation(path, f"{label} {measured} is less than {low_key} {schema[low_key]}"))
    if high_key in schema and measured > schema[high_key]:
        out.append(
            SchemaViolation(path, f"{label} {measured} is greater than {high_key} {schema[high_key]}")
        )


def _validate_object(
    value: dict[str, Any], schema: Schema, path: str, out: list[SchemaViolation]
) -> None:
    for name in schema.get("required", ()):
        if name not in value:
            out.append(SchemaViolation(path, f"missing required property {name!r}"))
    properties: Mapping[str, Schema] = schema.get("properties", {})
    for name, subschema in properties.items():
        if name in value:
            _validate_node(value[name], subschema, f"{path}.{name}", out)
    if schema.get("additionalProperties", True) is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            out.append(
                SchemaViolation(path, f"unexpected properties: {', '.join(map(repr, extra))}")
            )


def _validate_array(value: list[Any], schema: Schema, path: str, out: list[SchemaViolation]) -> None:
    _check_bounds(len(value), schema, "minItems", "maxItems", "item count", path, out)
    item_schema = schema.get("items")
    if item_schema is None:
        return
    for index in range(len(value)):
        _validate_node(value[index], item_schema, f"{path}[{index}]", out)


class SchemaRegistry:
    """Maps event names to payload schemas and validates events against them."""

    def __init__(self, schemas: Mapping[str, Schema] | None = None) -> None:
        self._schemas: dict[str, dict[str, Any]] = {}
        for event_name, schema in (schemas or {}).items():
            self.register(event_name, schema)

    def register(self, event_name: str, schema: Schema) -> None:
        """Register (or replace) the schema for *event_name*."""
        events.validate_event_name(event_name)
        if not isinstance(schema, Mapping):
            raise TypeError(
                f"schema for {event_name!r} must be a mapping, got {type(schema).__name__}"
            )
        self._schemas[event_name] = dict(schema)

    def get(self, event_name: str) -> dict[str, Any] | None:
        """Return the schema for *event_name*, if one is registered."""
        return self._schemas.get(event_name)

    def __contains__(self, event_name: object) -> bool:
        return event_name in self._schemas

    def __len__(self) -> int:
        return len(self._schemas)

    def check(self, event: events.Event, *, require_schema: bool = False) -> list[SchemaViolation]:
        """Return the violations of *event*'s payload against its schema.

        Events without a schema pass unless *require_schema* is true, in which
        case a :class:`LookupError` is raised.
        """
        schema = self._schemas.get(event.name)
        if schema is None:
            if require_schema:
                raise LookupError(f"no schema registered for event {event.name!r}")
            return []
        return validate(dict(event.payload), schema)

    def validate_event(self, event: events.Event, *, require_schema: bool = False) -> None:
        """Raise :class:`SchemaError` if *event*'s payload is invalid."""
        violations = self.check(event, require_schema=require_schema)
        if violations:
            raise SchemaError(violations, event.name)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> SchemaRegistry:
        """Load a registry from a JSON file mapping event names to schemas."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object mapping event names to schemas")
        return cls(data)
