"""An edit as statement rewrites: each smallest statement (or compound statement's header) it changes.

Getafix's lesson is that an edit's changed node alone says too little (``>=`` became ``>``: where?),
and the whole function too much. The unit here is the smallest statement that holds a change: a
small statement (an assignment, a return, an import, an expression) or one part of a compound
statement's header (an ``if``'s test, a ``def``'s parameters, an ``except``'s type). An edit that
adds or removes statements, or changes a block's shape, is not a rewrite of one unit: it is told
apart (``None``), not forced into a shape.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from .insertions import ITEM_PARENTS, is_item_edit, item_rewrite
from .trees import Tree, parse_module, tree_of

SEQUENCES = (cst.Module, cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite)
"""Nodes whose children are a list of statements, aligned as a sequence rather than position by position."""
HEADERS = (cst.BaseCompoundStatement, cst.ExceptHandler, cst.ExceptStarHandler, cst.Else, cst.Finally)
"""Nodes whose non-block children are a unit: the test of an ``if``, a ``def``'s name and parameters..."""
BLOCKS = (cst.BaseSuite, cst.BaseCompoundStatement, cst.Module, cst.SimpleStatementLine)
ITEM_NODES = (cst.DictElement, cst.Element, cst.Param)
DEFINITIONS = (cst.FunctionDef, cst.ClassDef)
"""Compound statements whose header parts may come and go (decorators, a return annotation) with the body kept."""


@dataclass(frozen=True)
class Rewrite:
    """One unit of one file, before and after the edit."""

    path: str
    before: Tree
    after: Tree


def file_rewrites(path: str, before: str, after: str, partial: bool = False) -> list[Rewrite] | None:
    """The units ``after`` rewrites in ``before``, in file order; None when the edit is not only rewrites
    (a statement added or removed, a block reshaped) or either side does not parse. ``partial``: the
    rewrites among whatever else the edit does (the pieces a macro could make, ``coverage``)."""
    old, new = parse_module(before), parse_module(after)
    if old is None or new is None:
        return None
    found: list[Rewrite] = []
    seen: set[int] = set()
    for pair in _differences(tree_of(old), tree_of(new), ()):
        if pair is None and partial:
            continue
        if pair is None:
            return None
        b, a = pair
        where = b.children[1].node if is_item_edit(b) else b.node
        if id(where) not in seen:
            seen.add(id(where))
            found.append(Rewrite(path, b, a))
    return found


Ancestors = tuple[tuple[Tree, Tree], ...]


def _differences(b: Tree, a: Tree, ancestors: Ancestors) -> Iterator[tuple[Tree, Tree] | None]:
    if b == a:
        return
    inner = (*ancestors, (b, a))
    if b.label == a.label and isinstance(b.node, SEQUENCES):
        yield from _aligned(b, a, inner)
    elif b.label == a.label and len(b.children) == len(a.children):
        for x, y in zip(b.children, a.children, strict=True):
            yield from _differences(x, y, inner)
    elif b.label == a.label and isinstance(b.node, DEFINITIONS) and _body(b) == _body(a):
        yield b, a  # a decorator or a return annotation added or removed: the whole signature is the unit
    else:
        yield _unit(b, a, ancestors)


def _body(definition: Tree) -> Tree | None:
    return next((c for c in definition.children if isinstance(c.node, cst.BaseSuite)), None)


def _aligned(b: Tree, a: Tree, ancestors: Ancestors) -> Iterator[tuple[Tree, Tree] | None]:
    matcher = difflib.SequenceMatcher(None, b.children, a.children, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if op != "replace" or i2 - i1 != j2 - j1:
            yield None  # statements added or removed: not a rewrite
            continue
        for x, y in zip(b.children[i1:i2], a.children[j1:j2], strict=True):
            yield from _differences(x, y, ancestors)


def _unit(b: Tree, a: Tree, ancestors: Ancestors) -> tuple[Tree, Tree] | None:
    """The smallest enclosing unit of a change, or None when the change is a block's or a statement's kind.
    An item of a collection literal or of a def's parameters is a unit too, under its path (``insertions``):
    a word corrected in a locale's dict is that entry's rewrite, not the whole dict's."""
    pairs = [*ancestors, (b, a)]
    for index in range(len(pairs) - 1, 0, -1):
        node, parent = pairs[index][0].node, pairs[index - 1][0].node
        if isinstance(node, BLOCKS):
            return None
        if isinstance(node, ITEM_NODES) and isinstance(parent, ITEM_PARENTS):  # an entry, an element, a parameter
            edit = item_rewrite([b for b, _ in pairs[:index]], *pairs[index])
            return edit.before, edit.after
        if isinstance(node, cst.BaseSmallStatement) or isinstance(parent, HEADERS):
            return pairs[index]
    return None
