"""The package's groups stack: each imports only the groups below it, and no module imports in a circle.

The order, from the bottom: ``core`` (the domain: tasks, workspace, tools, transcript, result); ``process``
(the processes a run starts: sandbox, pytest runs and servers, interrupts), which the domain never imports;
``macros``, ``agents`` and ``verifier``, side by side on both; ``run``; ``gate``; ``report``; ``routing``;
``mining`` (tasks mined from a repository's history, proved with ``run``); ``evolution`` (macros mined from
recurring edits, proved by the contract checks); ``plugin`` and ``mcp``, side by side; and the faces at the top (``cli``, the public package). Every import counts, at load, in a
function or for types only: an import that runs late is an arrow all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_granularity

PACKAGE = Path(pytest_granularity.__file__).resolve().parent

LAYERS = [
    {"core"},
    {"process"},
    {"macros", "agents", "verifier"},
    {"run"},
    {"gate"},
    {"report"},
    {"routing"},
    {"mining"},
    {"evolution"},
    {"plugin", "mcp"},
]
RANK = {group: rank for rank, groups in enumerate(LAYERS) for group in groups}
FACES = {"pytest_granularity", "pytest_granularity.cli"}
HOMES = {"pytest_granularity.hookspecs": "plugin", "pytest_granularity.compat": "core"}
"""A module outside the groups, and the group it belongs with: the hookspecs sit at the top because
their path is public API, and describe the plugin's hooks; ``compat`` (the private internals used, each with
a slow path) at the bottom, importing nothing of the package."""


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


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    return {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }


def imports_of(name: str, path: Path, modules: dict[str, Path], *, types: bool) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file (under TYPE_CHECKING only if ``types``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text())
    skipped = set() if types else _type_checking_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found |= {
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target for alias in node.names
            }
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {target for target in found if target in modules and target != name}


def group_of(name: str) -> str | None:
    """The group a module belongs to, or None for a face at the top."""
    if name in FACES:
        return None
    return HOMES.get(name) or name.split(".")[1]


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a group to one that is not below it (a face may import anything; nothing imports a face)."""
    wrong = []
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            source, dest = group_of(name), group_of(target)
            if source == dest:
                continue
            if dest is None or (source is not None and RANK[dest] >= RANK[source]):
                wrong.append(f"{name} -> {target}")
    return wrong


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


def test_every_module_is_in_a_known_group():
    unknown = {name for name in module_files() if (group := group_of(name)) is not None and group not in RANK}
    assert not unknown, f"modules outside the layers: {sorted(unknown)}"


def test_groups_import_only_the_groups_below_them():
    modules = module_files()
    graph = {name: imports_of(name, path, modules, types=True) for name, path in modules.items()}
    assert len(modules) > 60 and graph["pytest_granularity.plugin"], "the walk found the package's imports"
    wrong = arrows_up(graph)
    assert not wrong, f"{len(wrong)} imports run up or sideways: " + "; ".join(wrong)


def test_no_import_cycle():
    modules = module_files()
    graph = {name: imports_of(name, path, modules, types=False) for name, path in modules.items()}
    cycles = [cycle for name in sorted(graph) if (cycle := cycle_from(name, graph))]
    assert not cycles, f"{len(cycles)} modules are on an import cycle, e.g. " + " -> ".join(cycles[0])


def test_the_checks_find_what_they_look_for():
    assert cycle_from("a", {"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_from("a", {"a": {"b"}, "b": set()}) is None
    graph = {
        "pytest_granularity.core.tasks": {"pytest_granularity.run.runner"},
        "pytest_granularity.core.tools": {"pytest_granularity.process.pytest_process", "pytest_granularity.core.tasks"},
        "pytest_granularity.macros.kit": {"pytest_granularity.agents.chat", "pytest_granularity.core.workspace"},
        "pytest_granularity.plugin.session": {"pytest_granularity.cli", "pytest_granularity.report.html"},
    }
    assert arrows_up(graph) == [
        "pytest_granularity.core.tasks -> pytest_granularity.run.runner",
        "pytest_granularity.core.tools -> pytest_granularity.process.pytest_process",
        "pytest_granularity.macros.kit -> pytest_granularity.agents.chat",
        "pytest_granularity.plugin.session -> pytest_granularity.cli",
    ]
