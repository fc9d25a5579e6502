"""rename_class: rename a class within one module, with its uses in that module."""

from __future__ import annotations

import ast
import re

import libcst as cst

from pytest_granularity import MacroContext
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, old, new = ctx.args["file"], ctx.args["old"], ctx.args["new"]
    source, reasons = read_python(ctx, rel, dot_py=True)
    if source is None:
        return reasons
    text, tree = source.text, source.tree
    if len(_classes(tree, old)) != 1:
        reasons.append(f"{rel} does not define exactly one top-level class {old}")
    if any(
        isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == old for a in n.names)
        for n in ast.walk(tree)
    ):
        reasons.append(f"{rel} also imports a name {old}; the rename would be ambiguous")
    if re.search(rf"\b{re.escape(new)}\b", text):
        reasons.append(f"{rel} already mentions {new}")
    return reasons


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    renamer = _Rename(ctx.args["old"], ctx.args["new"])
    path.write_text(module.visit(renamer).code, encoding="utf-8")
    return f"renamed the class {ctx.args['old']} to {ctx.args['new']} in {ctx.args['file']} ({renamer.count} places)"


def validate(ctx: MacroContext) -> list[str]:
    rel, old, new = ctx.args["file"], ctx.args["old"], ctx.args["new"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    if len(_classes(tree, new)) != 1:
        problems.append(f"{rel} does not define the class {new}")
    left = sorted(
        {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == old}
        | {c.lineno for c in _classes(tree, old)}
    )
    if left:
        problems.append(f"{rel} still uses {old} on line(s) {', '.join(map(str, left))}")
    return problems or test_problems(ctx)


def _classes(tree: ast.Module, name: str) -> list[ast.ClassDef]:
    return [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]


class _Rename(cst.CSTTransformer):
    """Every name ``old`` (not attribute or keyword names) and every string that is exactly ``old``."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new, self.count = old, new, 0

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if updated.value != self.old:
            return updated
        self.count += 1
        return updated.with_changes(value=self.new)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        if original.attr.value == self.old:
            self.count -= 1
            return updated.with_changes(attr=original.attr)
        return updated

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        if original.keyword is not None and original.keyword.value == self.old:
            self.count -= 1
            return updated.with_changes(keyword=original.keyword)
        return updated

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
        if updated.evaluated_value != self.old:
            return updated
        self.count += 1
        return updated.with_changes(value=f"{updated.prefix}{updated.quote}{self.new}{updated.quote}")
