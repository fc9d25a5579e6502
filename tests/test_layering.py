"""The package's modules import one way: no module-level import cycle, so data flows down the chain."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_granularity

PACKAGE = Path(pytest_granularity.__file__).resolve().parent


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name; macro folders (hyphenated, loaded by path) are not modules."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if any("-" in part for part in parts):
            continue
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imports_at_load(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports when it is loaded (not in functions, not under TYPE_CHECKING)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found |= {
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target for alias in node.names
            }
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {target for target in found if target in modules and target != name}


def cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        name, path = stack.pop()
        for target in sorted(graph[name]):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def test_no_module_level_import_cycle():
    modules = module_files()
    graph = {name: imports_at_load(name, path, modules) for name, path in modules.items()}
    assert len(modules) > 60 and graph["pytest_granularity.plugin"], "the walk found the package's imports"
    cycles = [cycle for name in sorted(graph) if (cycle := cycle_from(name, graph))]
    assert not cycles, f"{len(cycles)} modules are on an import cycle, e.g. " + " -> ".join(cycles[0])


def test_the_cycle_finder_finds_a_cycle():
    assert cycle_from("a", {"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_from("a", {"a": {"b"}, "b": set()}) is None
