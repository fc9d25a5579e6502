"""The names a task's fail-to-pass tests use: what its verifier calls, so that its prompt can name it.

Read from the test files' syntax trees: the selected test functions (a test class's other tests left out),
everything else of their files (imports, helpers, fixtures, module-level code) and the ``conftest.py`` files
above them. A name counts when the tests load it, import it or reach it as an attribute (``box.area``
counts ``area`` whatever ``box`` is), so a name used only by tests that were not selected does not count,
and a name spelled only in a string (``mock.patch("pkg.f")``) is not seen.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..macros.kit import FunctionNode
from .surface import parse

Chain = tuple[str, ...]
"""A test's names within its file: ``("TestBox", "test_area")``."""
_PARAMETERS = re.compile(r"\[.*\]$")


@dataclass(frozen=True)
class Usage:
    """What the selected tests use: every identifier, and every module by its dotted name."""

    names: frozenset[str]
    modules: frozenset[str]

    def imports(self, module: str) -> bool:
        """Whether the tests import ``module``, also by a longer name (``src.pkg.mod`` for ``pkg.mod``)."""
        return any(used == module or used.endswith("." + module) for used in self.modules)


def usage(test_sources: Mapping[str, bytes], fail_to_pass: Sequence[str]) -> Usage:
    """What the tests named by ``fail_to_pass`` (pytest node ids, with paths as ``test_sources`` has them) use."""
    chains: dict[str, set[Chain]] = {}
    for node_id in fail_to_pass:
        path, *parts = node_id.split("::")
        chains.setdefault(path, set()).add(tuple(_PARAMETERS.sub("", part) for part in parts if part != "()"))
    nodes: list[ast.AST] = []
    for path, selected in chains.items():
        nodes.extend(_kept(_body(test_sources.get(path)), selected))
        for conftest in _conftests(path, test_sources):
            nodes.extend(_body(test_sources[conftest]))
    return _used(node for outer in nodes for node in ast.walk(outer))


def _used(nodes: Iterator[ast.AST]) -> Usage:
    names: set[str] = set()
    modules: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.name)
                names.update(alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.name for alias in node.names)
            if node.module and not node.level:
                modules.add(node.module)
                modules.update(f"{node.module}.{alias.name}" for alias in node.names)
                names.update(node.module.split("."))
    return Usage(frozenset(names), frozenset(modules))


def _body(source: bytes | None) -> list[ast.stmt]:
    tree = parse(source) if source is not None else None
    return tree.body if tree else []


def _kept(body: list[ast.stmt], selected: set[Chain]) -> Iterator[ast.AST]:
    """The parts of a body the selected tests run: each statement but the tests and test classes not selected
    (an empty chain selects the whole body, as a node id naming a file or a class selects all its tests)."""
    if () in selected:
        yield from body
        return
    for node in body:
        name = node.name if isinstance(node, FunctionNode | ast.ClassDef) else None
        through = {chain[1:] for chain in selected if chain[0] == name}
        if through and isinstance(node, ast.ClassDef):
            yield from node.decorator_list
            yield from node.bases
            yield from _kept(node.body, through)
        elif through or not _is_test(node):
            yield node


def _is_test(node: ast.stmt) -> bool:
    """A test function, or a class holding tests: what pytest collects by default (``test*``, ``Test*``)."""
    if isinstance(node, FunctionNode):
        return node.name.startswith("test")
    if isinstance(node, ast.ClassDef):
        return node.name.startswith("Test") or any(_is_test(s) for s in node.body)
    return False


def _conftests(path: str, test_sources: Mapping[str, bytes]) -> list[str]:
    """The ``conftest.py`` files pytest loads for the test file ``path``: its folder's and those above it."""
    candidates = [str(folder / "conftest.py") for folder in PurePosixPath(path).parents]
    return [c for c in candidates if c in test_sources]
