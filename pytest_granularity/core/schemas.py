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

from .errors import GranularityError
from .input_files import read_bounded

MAX_SHOWN = 80
"""Characters of an input value an error quotes at most: an error never repeats a large input."""


class DefinitionError(GranularityError):
    """An input file that cannot be used, with the file, the line (JSONL) and the field to blame."""

    def __init__(self, path: Path, field_name: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.field = field_name
        self.message = message
        self.line = line
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: field '{field_name}': {message}")


@cache
def packaged_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("pytest_granularity.core").joinpath(f"schemas/{name}").read_text()
    )
    return schema


def first_error(schema: dict[str, Any], instance: Any) -> tuple[str, str] | None:
    """The most relevant violation as (dotted field path, message), or None when valid."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(instance))
    if error is None:
        return None
    return ".".join(shortened(str(p)) for p in error.absolute_path) or "<root>", _message(error)


def _message(error: Any) -> str:
    """jsonschema's message with the offending value cut short (it quotes the whole value)."""
    shown = repr(error.instance)
    if len(shown) <= MAX_SHOWN:
        return str(error.message)
    return str(error.message).replace(shown, shortened(shown), 1)[: MAX_SHOWN * 4]


def shortened(text: str) -> str:
    """``text`` cut to ``MAX_SHOWN`` characters, for quoting an input value in an error."""
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def parse_json(text: str | bytes, path: Path, line: int | None = None) -> Any:
    """The JSON value of ``text`` (read from ``path``, at ``line`` for JSONL), or one DefinitionError.

    Every JSON input (reports, run records, baselines, routers) is decoded here, so a file that
    is not UTF-8, not JSON or nested too deeply for the decoder reads the same everywhere.
    """
    field_name = "<line>" if line is not None else "<file>"
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DefinitionError(path, field_name, _not_utf8(exc), line) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if line is not None else f"line {exc.lineno}, column {exc.colno}"
        raise DefinitionError(path, field_name, f"not JSON ({where}: {exc.msg})", line) from None
    except RecursionError:
        raise DefinitionError(path, field_name, "nested too deeply to read", line) from None


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or a DefinitionError saying why it cannot be read."""
    try:
        return read_bounded(path)
    except OSError as exc:
        raise DefinitionError(path, "<file>", f"cannot read: {exc.strerror or exc}") from None


def read_json(path: Path) -> Any:
    """The JSON value of the file at ``path``; see :func:`parse_json`."""
    return parse_json(read_bytes(path), path)


def read_text(path: Path) -> str:
    """The file as UTF-8 text, or a DefinitionError naming the first byte that is not."""
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError(path, "<file>", _not_utf8(exc)) from None


def _not_utf8(exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x})"


def check(path: Path, schema: dict[str, Any], instance: Any) -> None:
    """Raise :class:`DefinitionError` for the first violation of ``schema`` in the file at ``path``."""
    error = first_error(schema, instance)
    if error is not None:
        raise DefinitionError(path, *error)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load``, through libyaml where PyYAML was built with it: every session reads every task
    file, ten times faster so. A document libyaml refuses is read again by the pure-Python loader, whose
    error (and its mark) or reading is the one given. Any exception counts as a refusal: once ``yaml`` is
    imported again (pytester's in-process runs drop it from ``sys.modules``), libyaml's extension, which
    is never imported twice, still raises the first import's error classes, which ``yaml.YAMLError`` no
    longer matches."""
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:
        return yaml.safe_load(text)


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    import yaml

    text = read_text(path)
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise DefinitionError(path, "<file>", f"not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise DefinitionError(path, "<file>", "must be a mapping of fields")
    return data
