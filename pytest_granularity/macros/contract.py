"""A macro's contract, loaded from its folder and checked before it may run.

A macro is a folder: ``SKILL.md`` (model-facing text whose front matter is a valid Agent Skill),
``contract.yaml`` (the paper's seven parts plus the registry fields) and the Python runtime the
contract names. The contract is what makes a failure observable: declared preconditions are
checked before any write, declared side effects are compared with what the macro really did,
and the fallback names the micro tools that finish a half-done job.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NoReturn

from ..core.schemas import DefinitionError, check, load_yaml, packaged_schema, read_yaml_mapping
from ..process.interrupts import kill_group, tracked_process

CONTRACT_FILE = "contract.yaml"
SKILL_FILE = "SKILL.md"
SIDE_EFFECT_KINDS = ("create", "modify", "delete")
MODULE_PREFIX = "pytest_granularity_macro_"
"""Runtime files are imported under this prefix, the folder's digest and the file's name."""
BUILTIN_FOLDER = Path(__file__).parent / "builtin"
"""The package's own macros: its code, imported like the rest of it (not first in a child, see ``import_runtime``)."""
IMPORT_TIMEOUT_SECONDS = 60.0
"""The bound on importing a runtime file when no contract gives one (checking the callables of a broken contract)."""
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Macro:
    """A loaded macro: its contract fields, its Agent Skill front matter and its callables."""

    folder: Path
    contract: dict[str, Any]
    skill: dict[str, Any]
    preconditions: Callable[..., list[str]]
    run: Callable[..., str]
    validate: Callable[..., list[str]]
    derive: Callable[..., list[dict[str, Any]]] | None = None
    pieces: Callable[..., list[dict[str, Any]]] | None = None
    """The contract's ``pieces.find``: a macro that makes pieces of a change has one."""

    @property
    def name(self) -> str:
        name: str = self.contract["name"]
        return name

    @property
    def parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = self.contract["parameters"]
        return parameters

    @property
    def failure_classes(self) -> tuple[str, ...]:
        return tuple(self.contract["failure_classes"])

    def tool_schema(self) -> dict[str, Any]:
        description = f"{self.contract['description'].strip()}\nWhen: {self.contract['trigger_hint'].strip()}"
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": self.parameters},
        }

    def allowed(self, kind: str, path: str, args: dict[str, Any]) -> bool:
        """Whether the contract allows this ``create``/``modify``/``delete`` of ``path`` with ``args``."""
        patterns = self.contract.get("side_effects", {}).get(kind, [])
        return any(glob_match(p, path) for pattern in patterns for p in expand(pattern, args))


def expand(pattern: str, args: dict[str, Any]) -> list[str]:
    """``{name}`` placeholders filled from the call's arguments; a list argument gives one pattern per item."""
    results = [pattern]
    for name in _PLACEHOLDER.findall(pattern):
        value = args.get(name)
        values = value if isinstance(value, list) else [value]
        results = [r.replace(f"{{{name}}}", str(v).rstrip("/")) for r in results for v in values if v is not None]
    return results


def glob_match(pattern: str, path: str) -> bool:
    """Path globbing: ``*`` and ``?`` stay within one folder, ``**`` crosses folders."""
    return re.fullmatch(_glob_regex(pattern), path) is not None


def _glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
            i += 1
    return "".join(out)


def load_macro(folder: Path) -> Macro:
    """Load and check one macro folder; any problem is one error naming the file and field."""
    folder = Path(folder).resolve()
    contract_path = folder / CONTRACT_FILE
    contract = read_yaml_mapping(contract_path)
    check(contract_path, packaged_schema("contract.schema.json"), contract)
    seconds = None if folder.is_relative_to(BUILTIN_FOLDER.resolve()) else float(contract["timeout_seconds"])
    _check_parameters(contract_path, contract["parameters"])
    if contract.get("fallback_skill") == contract["name"]:
        name = contract["name"]
        raise DefinitionError(contract_path, "fallback_skill", f"'{name}' is this macro: a fallback is another macro")
    skill = read_skill_front_matter(folder / SKILL_FILE)
    expected = contract["name"].replace("_", "-")
    if skill.get("name") != expected:
        raise DefinitionError(
            folder / SKILL_FILE,
            "name",
            f"'{skill.get('name')}' must be '{expected}' (the contract name with '-' for '_')",
        )

    def resolve(field_name: str, ref: str) -> Callable[..., Any]:
        return resolve_callable(folder, contract_path, field_name, ref, seconds)

    return Macro(
        folder=folder,
        contract=contract,
        skill=skill,
        preconditions=resolve("preconditions.check", contract["preconditions"]["check"]),
        run=resolve("run", contract["run"]),
        validate=resolve("validation.check", contract["validation"]["check"]),
        derive=resolve("applicability.derive", contract["applicability"]["derive"])
        if "applicability" in contract
        else None,
        pieces=resolve("pieces.find", contract["pieces"]["find"]) if "pieces" in contract else None,
    )


def read_skill_front_matter(path: Path) -> dict[str, Any]:
    """The YAML front matter of a ``SKILL.md``: the part between the opening and closing ``---``."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DefinitionError(path, "<file>", f"cannot read: {exc.strerror}") from None
    parts = text.split("---", 2)
    if not text.startswith("---") or len(parts) < 3:
        raise DefinitionError(path, "<front matter>", "must start with YAML front matter between '---' lines")
    try:
        data = load_yaml(parts[1])
    except yaml.YAMLError:
        raise DefinitionError(path, "<front matter>", "front matter is not valid YAML") from None
    if not isinstance(data, dict):
        raise DefinitionError(path, "<front matter>", "front matter must be a mapping")
    return data


def _check_parameters(path: Path, schema: dict[str, Any]) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = ".".join(["parameters", *map(str, exc.absolute_path)])
        raise DefinitionError(path, where, f"not a valid JSON Schema: {exc.message}") from None
    if schema.get("type") != "object":
        raise DefinitionError(
            path, "parameters.type", "the parameters schema must have an object root ('type: object')"
        )


def resolve_callable(
    folder: Path, path: Path, field_name: str, ref: str, seconds: float | None = IMPORT_TIMEOUT_SECONDS
) -> Callable[..., Any]:
    """The function ``ref`` (``module:function``) names in the macro's folder; its file is imported
    first in a child process bounded by ``seconds`` unless None (see ``import_runtime``)."""
    module_name, function_name = ref.split(":")
    source = folder / f"{module_name}.py"
    if not source.is_file():
        raise DefinitionError(path, field_name, f"'{ref}': no file {module_name}.py in {folder}")
    digest = hashlib.sha1(str(source).encode()).hexdigest()[:12]
    module = import_runtime(source, f"{MODULE_PREFIX}{digest}_{module_name}", seconds)
    function: Callable[..., Any] | None = getattr(module, function_name, None)
    if not callable(function):
        raise DefinitionError(path, field_name, f"'{ref}': {module_name}.py has no function '{function_name}'")
    return function


def import_runtime(source: Path, name: str, seconds: float | None = None) -> Any:
    """Import a macro's runtime file once per process, under a name unique to its folder.

    A file's top-level code runs at import, in the caller's process: code that loops, sleeps,
    exits the process or raises there would hang or end whoever loads the registry. With
    ``seconds``, the file is therefore imported first in a forked child killed past them, and
    only a file whose import finished there is imported here (top-level code runs twice).
    """
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(source):
        return sys.modules[name]
    if seconds is not None:
        _import_in_child(source, name, seconds)
    spec = importlib.util.spec_from_file_location(name, source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise DefinitionError(source, "<module>", f"cannot import: {_one_line(exc)}") from None
    return module


def _import_in_child(source: Path, name: str, seconds: float) -> None:
    """Import ``source`` in a forked child of its own session, killed whole past ``seconds``;
    a hang, an exit or an exception there is a DefinitionError naming the file."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        _report_import(source, name, Connection(writer))
    os.close(writer)
    died = False
    with tracked_process(pid), Connection(reader) as receiver:
        try:
            if receiver.poll(seconds):
                problem = receiver.recv_bytes().decode(errors="replace") or None
            else:
                problem = f"importing it did not finish within {seconds:g}s"
        except EOFError:
            died, problem = True, "importing it ended the process"
        finally:
            kill_group(pid)
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if problem is not None:
        raise DefinitionError(source, "<module>", f"{problem} (exit code {code})" if died else problem)


def _report_import(source: Path, name: str, sender: Connection) -> NoReturn:
    """In the child: send nothing (an empty message) when ``source`` imports, else what went wrong, as text
    (never a pickle: the child ran the file's code); never return into the caller's code."""
    try:
        os.setsid()
        sender.send_bytes((_import_problem(source, name) or "").encode())
    finally:
        os._exit(0)


def _import_problem(source: Path, name: str) -> str | None:
    try:
        import_runtime(source, name)
    except DefinitionError as exc:
        return exc.message
    except BaseException as exc:
        return f"cannot import: {_one_line(exc)}"
    return None


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())
