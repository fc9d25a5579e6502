"""JSON Schema validation shared by every definition file (tasks, macro contracts) and tool call.

One place turns a schema violation into "file: field 'a.b': message", so every bad input the
user can write is reported the same way.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any


class DefinitionError(Exception):
    """A definition file that cannot be used, with the file and the field to blame."""

    def __init__(self, path: Path, field_name: str, message: str) -> None:
        self.path = path
        self.field = field_name
        self.message = message
        super().__init__(f"{path}: field '{field_name}': {message}")


@cache
def packaged_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(resources.files("pytest_granularity").joinpath(f"schemas/{name}").read_text())
    return schema


def first_error(schema: dict[str, Any], instance: Any) -> tuple[str, str] | None:
    """The most relevant violation as (dotted field path, message), or None when valid."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(instance))
    if error is None:
        return None
    return ".".join(str(p) for p in error.absolute_path) or "<root>", error.message


def check(path: Path, schema: dict[str, Any], instance: Any) -> None:
    """Raise :class:`DefinitionError` for the first violation of ``schema`` in the file at ``path``."""
    error = first_error(schema, instance)
    if error is not None:
        raise DefinitionError(path, *error)


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DefinitionError(path, "<file>", f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise DefinitionError(
            path, "<file>", f"not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x})"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise DefinitionError(path, "<file>", f"not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise DefinitionError(path, "<file>", "must be a mapping of fields")
    return data
