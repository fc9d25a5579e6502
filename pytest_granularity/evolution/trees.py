"""Python code as plain trees: what edits are compared, generalized and matched on.

libcst keeps every space, comma and parenthesis, so two edits that differ only in layout would not
look alike. A :class:`Tree` keeps a node's kind, its value where it has one (a name, a number, a
string, an operator's kind) and its children, and drops the layout: equal code compares equal
however it is spaced. Each tree keeps the libcst node it came from (not compared), for the code to
show and the place to rewrite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

HOLE = "?"
"""The label prefix of a hole: ``?0``, ``?1``... stand for what differs between instances."""
LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
    cst.Semicolon,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
)
"""Node kinds that are layout only: a relative import's dots are counted in the ``ImportFrom`` label."""


@dataclass(frozen=True)
class Tree:
    """A node's kind and value, and its children; ``node`` is where it came from and is not compared."""

    label: str
    children: tuple[Tree, ...] = ()
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)

    @property
    def is_hole(self) -> bool:
        return self.label.startswith(HOLE)

    @property
    def hole(self) -> int:
        return int(self.label[len(HOLE) :])

    def walk(self) -> Iterator[Tree]:
        yield self
        for child in self.children:
            yield from child.walk()

    def size(self) -> int:
        """The nodes that are not holes: how much a pattern says, the context a match needs."""
        return sum(1 for t in self.walk() if not t.is_hole)

    def holes(self) -> list[int]:
        """Its holes, each once, in the order they first appear."""
        return list(dict.fromkeys(t.hole for t in self.walk() if t.is_hole))

    def to_json(self) -> Any:
        return [self.label, [c.to_json() for c in self.children]] if self.children else self.label

    @classmethod
    def from_json(cls, data: Any) -> Tree:
        if isinstance(data, str):
            return cls(data)
        label, children = data
        return cls(label, tuple(cls.from_json(c) for c in children))


def hole(index: int, node: cst.CSTNode | None = None) -> Tree:
    return Tree(f"{HOLE}{index}", (), node)


def tree_of(node: cst.CSTNode) -> Tree:
    """``node`` without its layout."""
    children = []
    for item in _field_values(node):
        if isinstance(item, cst.CSTNode) and not isinstance(item, LAYOUT):
            children.append(tree_of(item))
    return Tree(label_of(node), tuple(children), node)


def label_of(node: cst.CSTNode) -> str:
    kind = type(node).__name__
    value = getattr(node, "value", None)
    if isinstance(value, str):
        return f"{kind}:{value}"
    if isinstance(node, cst.ImportFrom):
        return f"{kind}:{'.' * len(node.relative)}"
    return kind


def _field_values(node: cst.CSTNode) -> Iterator[Any]:
    for spec in dataclasses.fields(node):
        value = getattr(node, spec.name)
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


class ReplaceNodes(cst.CSTTransformer):
    """Each node whose ``id`` is a key replaced by its value: the places a tree's ``node`` fields point to."""

    def __init__(self, replacements: Mapping[int, cst.CSTNode]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
        return self.replacements.get(id(original), updated)


def parse_module(text: str) -> cst.Module | None:
    """The module, or None when it is not Python libcst can read."""
    try:
        return cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None


def parse_expression(text: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
