"""An edit of a container's items: items added beside a sibling, or one item rewritten where it stands.

Real commits rarely rewrite one statement; they add a definition next to the ones like it (a locale's
week names after its day names, a handler after the last handler), or correct one entry among its
siblings (a locale's word for "second", a parameter's default). Such an edit is runs of items inserted
into containers (a module's or a block's statements, a dict's or a list's elements), or an item of an
element container or of a def's parameters rewritten, a call each. An insertion's instance pairs the
sibling it follows (the before side: what a call finds) with the items added (the after side: what it
writes); a rewritten item's, the item before and after. Each side is under the container's *path*, the
scopes that hold it (``class ArabicLocale(Locale)``, ``timeframes =``), which says where a pattern that
is otherwise all holes applies. Anti-unified across tasks like any rewrite, a value the added items share
with their sibling becomes one hole: the call copies it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from .trees import Tree, parse_module, tree_of

ITEMS = "Items"
"""The label of an instance's two sides, with what the edit does: ``Items:after(path, sibling)`` and
``Items:after(path, *added)``; two tasks' instances merge only when their edits do the same."""
AFTER, BEFORE, REPLACE = "after", "before", "replace"
"""Items added after their sibling, before it (when they open the container), or one item rewritten."""
STATEMENTS = (cst.Module, cst.IndentedBlock)
ELEMENTS = (cst.Dict, cst.List, cst.Set, cst.Tuple)
CONTAINERS = (*STATEMENTS, *ELEMENTS)
"""Containers items are added to."""
ITEM_PARENTS = (*ELEMENTS, cst.Parameters)
"""Containers whose items are rewritten where they stand (a statement's rewrite is a rewrite of its own)."""
STATEMENT_KINDS = ("Module", "IndentedBlock")


@dataclass(frozen=True)
class ItemEdit:
    """Items added to a container beside a sibling, or one item of it rewritten, as an instance's two sides."""

    before: Tree
    after: Tree


def items(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """A container's items: statements, elements, or a def's (positional or keyword) parameters."""
    if isinstance(node, STATEMENTS):
        return node.body
    if isinstance(node, cst.Parameters):
        return node.params
    assert isinstance(node, ELEMENTS)
    return node.elements


def item_rewrite(ancestors: Sequence[Tree], before: Tree, after: Tree) -> ItemEdit:
    """``before`` rewritten as ``after``, an item of the last of ``ancestors`` (the outermost first)."""
    path = _path([step for tree in ancestors[:-1] for step in _scope(tree)], ancestors[-1])
    label = f"{ITEMS}:{REPLACE}"
    return ItemEdit(Tree(label, (path, before)), Tree(label, (path, after)))


def file_insertions(before: str, after: str) -> list[ItemEdit] | None:
    """The runs of items ``after`` adds to ``before``, or None when the edit does anything else too."""
    runs = _parsed_runs(before, after)
    return None if not runs or any(r is None for r in runs) else [r for r in runs if r is not None]


def insertion_runs(before: str, after: str) -> list[ItemEdit]:
    """Every run of items ``after`` adds to a container of ``before``, whatever else it changes: the pieces
    of a larger change that an insertion macro could make (``coverage``)."""
    return [r for r in _parsed_runs(before, after) or [] if r is not None]


def _parsed_runs(before: str, after: str) -> list[ItemEdit | None] | None:
    old, new = parse_module(before), parse_module(after)
    return list(_runs(tree_of(old), tree_of(new), [])) if old is not None and new is not None else None


def _runs(b: Tree, a: Tree, scopes: list[Tree]) -> Iterator[ItemEdit | None]:
    """Each run of added items, and None for each difference that is not one."""
    if b == a:
        return
    inner = [*scopes, *_scope(b)]
    if b.label == a.label and len(b.children) == len(a.children):
        for x, y in zip(b.children, a.children, strict=True):
            yield from _runs(x, y, inner)
        return
    if b.label != a.label or not isinstance(b.node, CONTAINERS) or not b.children:
        yield None
        return
    matcher = difflib.SequenceMatcher(None, b.children, a.children, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "insert":
            yield _run(b, scopes, i1, a.children[j1:j2])
        elif op == "replace" and i2 - i1 == j2 - j1:
            for x, y in zip(b.children[i1:i2], a.children[j1:j2], strict=True):
                yield from _runs(x, y, inner)
        elif op != "equal":
            yield None


def _run(container: Tree, scopes: list[Tree], at: int, new: Sequence[Tree]) -> ItemEdit:
    """``new`` put at ``at`` in ``container``: beside the item before it, or before the first."""
    path = _path(scopes, container)
    where, sibling = (AFTER, container.children[at - 1]) if at else (BEFORE, container.children[0])
    label = f"{ITEMS}:{where}"
    return ItemEdit(Tree(label, (path, sibling)), Tree(label, (path, *new)))


def _path(scopes: list[Tree], container: Tree) -> Tree:
    """Where a container is: the scopes that hold it, then its kind."""
    return Tree("Path", (*scopes, Tree(f"Container:{container.label}")))


def _scope(tree: Tree) -> list[Tree]:
    """The scope ``tree`` opens, as a path step: a class (its name and bases), a def (its name) or an
    assignment's target; nothing for other nodes."""
    node = tree.node
    if isinstance(node, cst.ClassDef):
        return [Tree("Scope:class", (tree_of(node.name), *(tree_of(b.value) for b in node.bases)), node)]
    if isinstance(node, cst.FunctionDef):
        return [Tree("Scope:def", (tree_of(node.name),), node)]
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        return [Tree("Scope:assign", (tree_of(node.targets[0].target),), node)]
    if isinstance(node, cst.AnnAssign):
        return [Tree("Scope:assign", (tree_of(node.target),), node)]
    return []


def containers(module: cst.Module) -> Iterator[tuple[cst.CSTNode, Tree]]:
    """Every container of ``module`` items are added to or rewritten in, with its path."""
    yield from _containers(tree_of(module), [])


def _containers(tree: Tree, scopes: list[Tree]) -> Iterator[tuple[cst.CSTNode, Tree]]:
    inner = [*scopes, *_scope(tree)]
    if isinstance(tree.node, (*CONTAINERS, cst.Parameters)):
        yield tree.node, _path(scopes, tree)
    for child in tree.children:
        yield from _containers(child, inner)


def parse_item(code: str, container: str) -> cst.CSTNode | None:
    """``code`` as an item of a container of kind ``container`` (``Dict``, ``IndentedBlock``...), or None."""
    try:
        if container in STATEMENT_KINDS:
            return cst.parse_statement(code)
        if container == "Parameters":
            found = cst.ensure_type(cst.parse_statement(f"def _({code}): pass"), cst.FunctionDef).params.params
            return found[0] if len(found) == 1 else None
        wrapped = cst.parse_expression(("{%s}" if container in ("Dict", "Set") else "[%s]") % code)
    except cst.ParserSyntaxError:
        return None
    found = getattr(wrapped, "elements", [])
    kind = cst.DictElement if container == "Dict" else cst.Element
    return found[0] if len(found) == 1 and isinstance(found[0], kind) else None


def with_items(container: cst.CSTNode, index: int, where: str, new: Sequence[cst.CSTNode]) -> cst.CSTNode:
    """``container`` with ``new`` put after (or before) its item ``index``, or in its place, laid out as that
    item is."""
    old = list(items(container))
    if where == REPLACE:
        placed = [n.with_changes(comma=getattr(old[index], "comma", cst.MaybeSentinel.DEFAULT)) for n in new]
        field = "params" if isinstance(container, cst.Parameters) else "elements"
        return container.with_changes(**{field: [*old[:index], *placed, *old[index + 1 :]]})
    at = index + 1 if where == AFTER else index
    if isinstance(container, STATEMENTS):
        spaced = getattr(old[index], "leading_lines", ())  # blank lines and comments as the sibling has them
        return container.with_changes(body=[*old[:at], *(n.with_changes(leading_lines=spaced) for n in new), *old[at:]])
    ending = getattr(old[-1], "comma", cst.MaybeSentinel.DEFAULT)
    comma = _separator(container, old, index)
    laid = [n.with_changes(comma=comma) for n in new]
    if at == len(old):  # after the last element: it takes a separator, the last new one keeps the old ending
        old[-1] = old[-1].with_changes(comma=comma)
        laid[-1] = laid[-1].with_changes(comma=ending)
    return container.with_changes(elements=[*old[:at], *laid, *old[at:]])


def _separator(container: cst.CSTNode, old: Sequence[cst.CSTNode], index: int) -> cst.Comma:
    """The comma between two elements here: the sibling's when another follows it, else the one before it;
    for a lone element, one that breaks the line where the opening bracket does (or a space)."""
    inner = [getattr(e, "comma", None) for e in old[:-1]]
    found = [c for c in (inner[index] if index < len(inner) else None, *reversed(inner)) if isinstance(c, cst.Comma)]
    if found:
        return found[0]
    opening = getattr(container, "lbrace", None) or getattr(container, "lbracket", None)
    broken = getattr(opening, "whitespace_after", None)
    if isinstance(broken, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=broken)
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def is_item_edit(tree: Tree) -> bool:
    return tree.label.startswith(ITEMS + ":")


def where_of(tree: Tree) -> str:
    return tree.label.partition(":")[2]


def container_kind(tree: Tree) -> str:
    """The kind of container an insertion pattern's path ends in (``Dict``, ``IndentedBlock``...)."""
    return tree.children[0].children[-1].label.partition(":")[2]
