"""Anti-unification: the most specific pattern that several rewrites are instances of.

Walking the instances side by side, a node all of them share stays; nodes of one kind with as many
children are kept and their children generalized; anywhere else the instances differ, a hole takes
their place. The same differing values get the same hole everywhere, before and after the edit
(Getafix's consistent anti-unification), so ``X >= LIMIT -> X > LIMIT`` and ``n >= size -> n > size``
give ``?0 >= ?1 -> ?0 > ?1``: the after side says where the before side's parts go. A hole may only
stand for an expression (a name, a literal, a call...): the macro's parameters are code a caller can
write and the pattern can be instantiated with.

Instances are clustered bottom-up (Getafix's hierarchical anti-unification): the two clusters whose
pattern keeps the most are merged first, and a merge is refused when the pattern would keep fewer than
``MIN_CONTEXT`` nodes before the edit (it would match almost any statement) or no longer changes anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from .insertions import is_item_edit
from .trees import Tree, hole

MIN_CONTEXT = 2
"""The fewest nodes a shape's before-pattern keeps besides its holes: ``?0 = ?1`` keeps two (an assignment
and its target) and is allowed, a lone ``?0`` keeps none and would match everything."""


@dataclass(frozen=True)
class Pattern:
    """A generalized rewrite: the before and after trees with holes, and each hole's value per instance."""

    before: Tree
    after: Tree
    values: tuple[tuple[Tree, ...], ...]
    """``values[i]`` are hole ``i``'s subtrees, one per instance, in the instances' order."""

    @property
    def specificity(self) -> int:
        return self.before.size() + self.after.size()


def anti_unify(befores: Sequence[Tree], afters: Sequence[Tree]) -> Pattern | None:
    """The pattern of these instances (``befores[i] -> afters[i]``), or None when they differ in something
    that is not an expression."""
    holes: dict[tuple[Tree, ...], int] = {}

    def generalize(nodes: tuple[Tree, ...]) -> Tree | None:
        first = nodes[0]
        if all(n == first for n in nodes[1:]):
            return first
        if all(n.label == first.label and len(n.children) == len(first.children) for n in nodes):
            children = [generalize(tuple(n.children[i] for n in nodes)) for i in range(len(first.children))]
            if any(c is None for c in children):
                return None
            return Tree(first.label, tuple(c for c in children if c is not None), first.node)
        if not all(isinstance(n.node, cst.BaseExpression) for n in nodes):
            return None
        return hole(holes.setdefault(nodes, len(holes)), first.node)

    before = generalize(tuple(befores))
    after = generalize(tuple(afters)) if before is not None else None
    if before is None or after is None:
        return None
    return Pattern(before, after, tuple(values for values, _ in sorted(holes.items(), key=lambda kv: kv[1])))


def acceptable(pattern: Pattern) -> bool:
    """Specific enough to say where it applies, still an edit, and saying where the before side's parts go:
    a pattern whose holes before the edit are all gone after it (``return ?0 and ?1 -> return ?2 and ?3``)
    only says "write something else here". An insertion's before side is the sibling, which says where the
    items go and stays: its values need not reappear in them."""
    found = set(pattern.before.holes())
    linked = not found or bool(found & set(pattern.after.holes())) or is_item_edit(pattern.before)
    return pattern.before.size() >= MIN_CONTEXT and pattern.before != pattern.after and linked


@dataclass(frozen=True)
class Instance:
    """One site of a task's edit: a rewrite (the same before and after wherever it applies) or a run of added items."""

    task: str
    before: Tree
    after: Tree
    piece: int | None = None
    """Which piece of a larger change this is (``edits.pieces_of``); None for a site of an edit that is all calls
    of one shape."""


def clusters(instances: Sequence[Instance]) -> list[tuple[Pattern, list[Instance]]]:
    """Instances grouped bottom-up, the most specific merge first; every group with its pattern.

    A task's sites (its instances) start as one group and stay together: its calls must all be of the
    group's shape. So a shape's support is the different tasks it holds, and the merging works on tasks,
    however many sites a task has. The pieces of a larger change start a group each: each may be of
    another shape, and the rest of the change is left to whoever finishes it."""
    by_task: dict[tuple[str, int | None], list[Instance]] = {}
    for instance in instances:
        by_task.setdefault((instance.task, instance.piece), []).append(instance)
    groups = [group for group in by_task.values() if _pattern(group) is not None]
    while True:
        best: tuple[int, int, int] | None = None
        for x in range(len(groups)):
            for y in range(x + 1, len(groups)):
                merged = _pattern(groups[x] + groups[y])
                if merged is not None and acceptable(merged) and (best is None or merged.specificity > best[0]):
                    best = (merged.specificity, x, y)
        if best is None:
            break
        _, x, y = best
        groups[x] = groups[x] + groups.pop(y)
    return [(pattern, group) for group in groups if (pattern := _pattern(group)) is not None]


def _pattern(group: Sequence[Instance]) -> Pattern | None:
    return anti_unify([i.before for i in group], [i.after for i in group])
