"""A mined edit shape as a macro carries it (``shape.json``): the pattern to find, the code to write.

The before side is a tree with holes, matched structurally (layout ignored). The after side is code: the
first instance's rewritten unit, each hole's place taken by a placeholder name, so it is written with its
parameters put back where they go. A hole that appears before the edit is pinned by the call (the call
names what it rewrites); one that only appears after is the new code the call brings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from .generalize import Pattern
from .insertions import is_item_edit
from .trees import ReplaceNodes, Tree, parse_expression

SHAPE_FILE = "shape.json"
PLACEHOLDER = "__granularity_hole_{}__"
STATEMENT, EXPRESSION, INSERTED = "statement", "expression", "insertion"


@dataclass(frozen=True)
class Hole:
    """One parameter: its name, the node kinds its instances had, and their code."""

    name: str
    kinds: list[str]
    examples: list[str]
    before: bool
    """Whether it appears before the edit (what to find) or only after (what to write)."""


@dataclass(frozen=True)
class Shape:
    """What a mined macro's engine needs and a person reads: plain JSON, so the folder can be reviewed and edited."""

    before: Any
    """The before-pattern's tree (``Tree.to_json``), holes as ``?i``."""
    template: str
    """The after-unit's code, hole ``i`` written as ``PLACEHOLDER.format(i)``."""
    kind: str
    """``statement`` (a small statement) or ``expression``: how ``template`` is parsed."""
    holes: list[Hole]
    before_code: str
    after: Any
    """The after-pattern's tree, as ``before``: where each new value goes, for the derivation."""
    tests: bool = False
    """Whether its sources rewrote test files: if not, the derivation proposes no call in one."""
    items: list[str] = field(default_factory=list)
    """For an ``insertion``: each added item's code with placeholders (``template`` is them joined)."""

    @property
    def pattern(self) -> Tree:
        return Tree.from_json(self.before)

    def describe(self, side: str) -> str:
        """The code of one side (``before`` or ``after``) with ``{name}`` where each hole goes."""
        code = self.template if side == "after" else self.before_code
        for index, spec in enumerate(self.holes):
            code = code.replace(PLACEHOLDER.format(index), f"{{{spec.name}}}")
        return code

    def write(self, folder: Path) -> None:
        (folder / SHAPE_FILE).write_text(json.dumps(asdict(self), indent=1, sort_keys=True) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> Shape:
        data = json.loads((folder / SHAPE_FILE).read_text(encoding="utf-8"))
        return cls(
            before=data["before"],
            template=data["template"],
            kind=data["kind"],
            holes=[Hole(**h) for h in data["holes"]],
            before_code=data["before_code"],
            after=data["after"],
            tests=data["tests"],
            items=data.get("items", []),
        )


def shape_of(pattern: Pattern) -> Shape | None:
    """The shape of a pattern, or None when its units are not a small statement or an expression (or an
    insertion's sibling and added items)."""
    if is_item_edit(pattern.before):
        return _insertion_shape(pattern)
    kind = unit_kind(pattern.after.node)
    if kind is None or unit_kind(pattern.before.node) != kind:
        return None
    return Shape(
        before=pattern.before.to_json(),
        template=_with_placeholders(pattern.after),
        kind=kind,
        holes=_holes(pattern),
        before_code=_with_placeholders(pattern.before),
        after=pattern.after.to_json(),
    )


def _insertion_shape(pattern: Pattern) -> Shape:
    """An insertion's shape: the sibling's code under its path (what a call finds), the items it writes."""
    path, sibling = pattern.before.children
    items = [_with_placeholders(item) for item in pattern.after.children[1:]]
    return Shape(
        before=pattern.before.to_json(),
        template="\n".join(items),
        kind=INSERTED,
        holes=_holes(pattern),
        before_code=f"{path_text(path)}: {_with_placeholders(sibling)}",
        after=pattern.after.to_json(),
        items=items,
    )


def path_text(path: Tree) -> str:
    """Where a container is, for people: ``class {p0}(Locale) > timeframes = > Dict``."""
    steps = []
    for step in path.children:
        kind, _, what = step.label.partition(":")
        names = [_with_placeholders(c) for c in step.children]
        if what == "class":
            steps.append(f"class {names[0]}" + (f"({', '.join(names[1:])})" if names[1:] else ""))
        elif what == "def":
            steps.append(f"def {names[0]}")
        else:
            steps.append(f"{names[0]} =" if kind == "Scope" else what)
    return " > ".join(steps)


def _holes(pattern: Pattern) -> list[Hole]:
    before_holes = set(pattern.before.holes())
    return [
        Hole(
            name=f"p{index}",
            kinds=sorted({type(v.node).__name__ for v in values}),
            examples=list(dict.fromkeys(code_of(v) for v in values)),
            before=index in before_holes,
        )
        for index, values in enumerate(pattern.values)
    ]


def instance_arguments(pattern: Pattern, index: int) -> dict[str, str]:
    """The parameters that reproduce instance ``index``: each hole's code in it."""
    return {f"p{h}": code_of(values[index]) for h, values in enumerate(pattern.values)}


def code_of(tree: Tree) -> str:
    assert tree.node is not None
    return cst.Module([]).code_for_node(tree.node).strip()


def unit_kind(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.BaseSmallStatement):
        return STATEMENT
    if isinstance(node, cst.BaseExpression):
        return EXPRESSION
    return None


def _with_placeholders(pattern: Tree) -> str:
    """The code of the pattern's first instance with each hole's place written as its placeholder."""
    assert pattern.node is not None
    places = {
        id(t.node): cst.Name(PLACEHOLDER.format(t.hole)) for t in pattern.walk() if t.is_hole and t.node is not None
    }
    node = pattern.node.visit(ReplaceNodes(places))
    return cst.Module([]).code_for_node(node).strip()  # type: ignore[arg-type]


def parse_unit(code: str, kind: str) -> cst.CSTNode | None:
    """``code`` as the unit ``kind`` says, or None when it does not parse as one."""
    if kind == EXPRESSION:
        return parse_expression(code)
    try:
        line = cst.parse_statement(code)
    except cst.ParserSyntaxError:
        return None
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
        return line.body[0]
    return None


def fill(template: cst.CSTNode, values: Mapping[int, cst.BaseExpression]) -> cst.CSTNode:
    """The template with each placeholder replaced by its value's expression."""
    return template.visit(_Filler(values))  # type: ignore[return-value]


class _Filler(cst.CSTTransformer):
    def __init__(self, values: Mapping[int, cst.BaseExpression]) -> None:
        super().__init__()
        self.values = {PLACEHOLDER.format(i): v for i, v in values.items()}

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.values.get(original.value, updated)
