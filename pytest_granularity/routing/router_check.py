"""Validating a router file before any run walks it.

A tree walker trusts its arrays: an index out of range is a traceback in every learned run, and
a cycle is a walk that never ends. So a router is checked whole when it is loaded: the JSON
Schema (types, format, supported version), then the structure of each tree (arrays of one
length, children in range, every node reached from the root exactly once, features and
classes the runtime knows, in the order it computes them). The first defect is one error
naming the file and the field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.schemas import DefinitionError, check, packaged_schema, shortened

ARRAYS = ("feature", "threshold", "children_left", "children_right", "value")
LEAF = -1
ROUTER_FORMAT = "pytest-granularity router"
SUPPORTED_VERSION = 1


def check_router(path: Path, data: Any, trees: dict[str, tuple[Sequence[str], Sequence[str]]]) -> None:
    """Raise :class:`DefinitionError` for the first defect; ``trees`` maps a tree's field to
    (the features it must use, in order; the classes it may predict)."""
    if isinstance(data, dict) and data.get("format") != ROUTER_FORMAT:
        raise DefinitionError(
            path, "format", f"not a {ROUTER_FORMAT} file (its format is {shortened(repr(data.get('format')))})"
        )
    if isinstance(data, dict) and data.get("version", SUPPORTED_VERSION) != SUPPORTED_VERSION:
        raise DefinitionError(
            path, "version", f"{data['version']!r} is not supported (this release reads version {SUPPORTED_VERSION})"
        )
    check(path, packaged_schema("router.schema.json"), data)
    for name, (features, classes) in trees.items():
        problem = _tree_problem(data[name], features, classes)
        if problem:
            raise DefinitionError(path, f"{name}.{problem[0]}", problem[1])


def _tree_problem(tree: dict[str, Any], features: Sequence[str], classes: Sequence[str]) -> tuple[str, str] | None:
    if list(tree["features"]) != list(features):
        return "features", f"{tree['features']} is not the runtime's features in its order: {list(features)}"
    unknown = [c for c in tree["classes"] if c not in classes]
    if unknown:
        return "classes", f"unknown class {unknown[0]!r}; known: {', '.join(classes)}"
    count = len(tree["feature"])
    for name in ARRAYS:
        if len(tree[name]) != count:
            return name, f"has {len(tree[name])} entries, 'feature' has {count}: every node needs one of each"
    for node in range(count):
        problem = _node_problem(tree, node, count)
        if problem:
            return problem
    return _reach_problem(tree, count)


def _node_problem(tree: dict[str, Any], node: int, count: int) -> tuple[str, str] | None:
    left, right = tree["children_left"][node], tree["children_right"][node]
    if (left == LEAF) != (right == LEAF):
        return f"children_left[{node}]", f"node {node} has one child ({left}, {right}); a node has two or none"
    for name, child in (("children_left", left), ("children_right", right)):
        if child != LEAF and not 0 < child < count:
            return (
                f"{name}[{node}]",
                f"child {child} is not a node (1 to {count - 1}; node 0 is the root; -1 marks a leaf)",
            )
    if len(tree["value"][node]) != len(tree["classes"]):
        return f"value[{node}]", f"has {len(tree['value'][node])} counts for {len(tree['classes'])} classes"
    if left == LEAF:
        return None
    if not 0 <= tree["feature"][node] < len(tree["features"]):
        return f"feature[{node}]", f"{tree['feature'][node]} is not a feature index (0 to {len(tree['features']) - 1})"
    if not math.isfinite(tree["threshold"][node]):
        return f"threshold[{node}]", "must be a finite number"
    return None


def _reach_problem(tree: dict[str, Any], count: int) -> tuple[str, str] | None:
    """Every node reached from the root exactly once: no cycle, no shared child, no orphan."""
    seen = {0}
    stack = [0]
    while stack:
        node = stack.pop()
        for name in ("children_left", "children_right"):
            child = tree[name][node]
            if child == LEAF:
                continue
            if child in seen:
                return f"{name}[{node}]", f"node {child} is reached twice (a cycle or a shared child)"
            seen.add(child)
            stack.append(child)
    orphans = sorted(set(range(count)) - seen)
    if orphans:
        return "children_left", f"node {orphans[0]} is not reachable from the root (node 0)"
    return None
