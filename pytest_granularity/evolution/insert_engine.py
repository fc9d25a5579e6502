"""What a mined item-edit macro does: add items beside a sibling found exactly once, or rewrite that item.

A call names the file and every hole's code: the before-holes say where (the scopes on the container's
path, the sibling's values), the after-only holes what the new items say. Its preconditions find the
container and the sibling in it exactly once, and refuse a call whose items are there already; its run
puts the items beside the sibling (or in its place), laid out as it is; its validation is the rewrite
macros' own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import libcst as cst

from .engine import MAX_CALLS, MAX_FILES, ShapeMacro, _instantiated, _needles, _unify
from .insertions import (
    AFTER,
    REPLACE,
    container_kind,
    containers,
    insertion_runs,
    is_item_edit,
    items,
    parse_item,
    where_of,
    with_items,
)
from .shape import fill
from .trees import ReplaceNodes, Tree, parse_module, tree_of

Place = tuple[cst.CSTNode, int]
"""A container and the index of the sibling in it."""


class InsertMacro(ShapeMacro):
    """A mined item-edit macro's four functions over its ``shape.json``: items added beside a sibling, or one
    item rewritten where it stands."""

    def __init__(self, folder: Path) -> None:
        self._read(folder)
        self.container = container_kind(self.pattern)
        parsed = [parse_item(code, self.container) for code in self.shape.items]
        if any(p is None for p in parsed) or not parsed:
            raise ValueError(f"{folder}: the shape's items do not parse as items of a {self.container}")
        self.items = [p for p in parsed if p is not None]

    def _misfits(
        self, rel: str, module: cst.Module, values: Mapping[int, cst.BaseExpression], args: Mapping[str, Any]
    ) -> list[str]:
        """Why the call does not fit this file: the sibling not found exactly once, or the items there already."""
        target, new = self._insertion(values)
        found = _places(module, target)
        if len(found) != 1:
            return [f"{rel} has `{self._code('before', args)}` {len(found)} times, not exactly once"]
        return [f"{rel} has the items already"] if _present(found[0][0], new) else []

    def _edited(self, module: cst.Module, values: Mapping[int, cst.BaseExpression]) -> cst.Module | None:
        target, new = self._insertion(values)
        found = _places(module, target)
        if len(found) != 1:
            return None
        container, index = found[0]
        grown = with_items(container, index, where_of(self.pattern), new)
        return module.visit(ReplaceNodes({id(container): grown}))

    def _summary(self, files: int) -> str:
        where = where_of(self.pattern)
        if where == REPLACE:
            return f"rewrote one item in each of {files} file(s)"
        return f"added {len(self.items)} item(s) {where} the sibling in each of {files} file(s)"

    def derive(self, prompt: str, files: Mapping[str, bytes]) -> list[dict[str, Any]]:
        """Calls whose every new value the prompt quotes, in the order the items take them, beside a sibling
        whose scope the prompt names ("add "week": "1 week" to EnglishLocale's timeframes").

        A new item's values are not a replacement the request reader can state, and a guessed one passes the
        project's tests as often as not (a harmful call); so only a prompt that gives exactly as many values
        of the sources' kinds as the items have new holes, and names where they go, gets a call."""
        written = [i for i, h in enumerate(self.shape.holes) if not h.before]
        given = {i: self._prompt_values(prompt, i) for i in written}
        kinds = {i: {t for t, _ in values} for i, values in given.items()}
        spelled: dict[int, str] = {}  # one spelling per value the prompt gives, double quotes first
        for code, end in sorted({v for values in given.values() for v in values}):
            if end not in spelled or code.startswith('"'):
                spelled[end] = code
        ordered = [spelled[end] for end in sorted(spelled)]
        if not written or len(ordered) != len(written):
            return []
        if any(value not in kinds[i] for i, value in zip(written, ordered, strict=True)):
            return []
        calls = []
        scope_holes = {f"p{i}" for i in self.pattern.children[0].holes()}
        for rel, bound in self._insert_bindings(files):
            scopes = [v for k, v in bound.items() if k in scope_holes]
            if scopes and all(v in prompt for v in scopes):
                call = {"files": [rel], **bound, **{f"p{i}": v for i, v in zip(written, ordered, strict=True)}}
                if self._changes(call):
                    calls.append(call)
        return calls[:MAX_CALLS]

    def _units(self, before: str, after: str) -> list[tuple[Tree, Tree]]:
        """The file's runs of added items, each cut to as many items as this shape adds (the first of a run
        after its sibling, the last of one before it), and its items rewritten where they stand."""
        count = len(self.items)
        found = []
        for run in insertion_runs(before, after):
            path, *added = run.after.children
            window = added[:count] if where_of(run.after) == AFTER else added[-count:]
            if len(window) == count:
                found.append((run.before, Tree(run.after.label, (path, *window))))
        return found + [(b, a) for b, a in super()._units(before, after) if is_item_edit(b)]

    def _insert_bindings(self, files: Mapping[str, bytes]) -> Iterator[tuple[str, dict[str, str]]]:
        """Every sibling the pattern matches, with its before-holes' code."""
        place, sibling = self.pattern.children
        needles = [*_needles(sibling), *(n for step in place.children for c in step.children for n in _needles(c))]
        for rel in sorted(p for p in files if p.endswith(".py"))[:MAX_FILES]:
            code = files[rel].decode("utf-8", errors="replace")
            module = parse_module(code) if all(n in code for n in needles) else None
            if module is None:
                continue
            for container, path in containers(module):
                for item in items(container):
                    bound: dict[int, Tree] = {}
                    found = Tree(self.pattern.label, (path, tree_of(item)))
                    if _unify(self.pattern, found, bound):
                        yield rel, {f"p{i}": module.code_for_node(t.node).strip() for i, t in bound.items() if t.node}

    def _changes_with(self, values: Mapping[int, cst.BaseExpression]) -> bool:
        target, new = self._insertion(values)
        return all(tree_of(n) != target.children[1] for n in new)

    def _insertion(self, values: Mapping[int, cst.BaseExpression]) -> tuple[Tree, list[cst.CSTNode]]:
        """What the call finds (the path and the sibling, with its values) and the items it adds."""
        target = _instantiated(self.pattern, {i: tree_of(v) for i, v in values.items()})
        return target, [fill(item, values) for item in self.items]


def _places(module: cst.Module, target: Tree) -> list[Place]:
    path, sibling = target.children
    return [
        (container, index)
        for container, found in containers(module)
        if found == path
        for index, item in enumerate(items(container))
        if tree_of(item) == sibling
    ]


def _present(container: cst.CSTNode, new: list[cst.CSTNode]) -> bool:
    have = {tree_of(item) for item in items(container)}
    return any(tree_of(n) in have for n in new)
