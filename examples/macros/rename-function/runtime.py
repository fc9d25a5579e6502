"""rename_function: rename a top-level function and its uses within one module."""

from __future__ import annotations

import ast
import re

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import bound_name, find_functions, last_line, line_offsets, read_python

Position = tuple[int, int]
"""(line, byte column), as the ast reports them."""


def _conflicts(tree: ast.Module, old: str, new: str) -> list[str]:
    defs = find_functions(tree, old)
    reasons = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == old and node not in defs:
                reasons.append(f"another def or class named {old} shadows it (line {line})")
            if node.name == new:
                reasons.append(f"the module already defines {new} (line {line})")
        elif isinstance(node, ast.arg) and node.arg in (old, new):
            reasons.append(f"a parameter is named {node.arg} (line {line})")
        elif isinstance(node, ast.Name):
            if node.id == old and not isinstance(node.ctx, ast.Load):
                reasons.append(f"{old} is rebound (line {line})")
            if node.id == new:
                reasons.append(f"the module already uses the name {new} (line {line})")
        elif isinstance(node, ast.alias) and bound_name(node) in (old, new):
            reasons.append(f"an import binds {bound_name(node)} (line {line})")
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and {old, new} & set(node.names):
            reasons.append(f"a global or nonlocal statement names {old} or {new} (line {line})")
    return list(dict.fromkeys(reasons))


def preconditions(ctx: MacroContext) -> list[str]:
    source, reasons = read_python(ctx, ctx.args["file"])
    if source is None:
        return reasons
    tree = source.tree
    old, new = ctx.args["old"], ctx.args["new"]
    if old == new:
        return ["old and new are the same name"]
    count = len(find_functions(tree, old))
    if count != 1:
        reasons.append(
            f"{ctx.args['file']} defines {count} top-level functions named {old} (it must define exactly one)"
        )
    return reasons + _conflicts(tree, old, new)


def _edits(text: str, tree: ast.Module, old: str) -> list[tuple[Position, Position]]:
    """The spans (in the file's bytes) that spell the function's name."""
    lines = text.encode("utf-8").splitlines(keepends=True)
    spans = []
    for node in find_functions(tree, old):
        match = re.compile(rb"def\s+(" + re.escape(old.encode()) + rb")\b").search(
            lines[node.lineno - 1], node.col_offset
        )
        if match is None:
            raise MacroError(f"cannot find the name in the def of {old} (line {node.lineno})")
        spans.append(((node.lineno, match.start(1)), (node.lineno, match.end(1))))
    for use in ast.walk(tree):
        if isinstance(use, ast.Name) and use.id == old:
            spans.append(((use.lineno, use.col_offset), (last_line(use), use.end_col_offset or 0)))
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        value = getattr(stmt, "value", None)
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) or value is None:
            continue
        for entry in ast.walk(value):
            if isinstance(entry, ast.Constant) and entry.value == old and entry.lineno == entry.end_lineno:
                end = (entry.end_col_offset or 0) - 1
                inner = lines[entry.lineno - 1][entry.col_offset + 1 : end]
                if inner == old.encode():
                    spans.append(((entry.lineno, entry.col_offset + 1), (entry.lineno, end)))
    return spans


def _apply(text: str, spans: list[tuple[Position, Position]], new: str) -> str:
    data = text.encode("utf-8")
    starts = line_offsets(data)
    for (l1, c1), (l2, c2) in sorted(spans, reverse=True):
        data = data[: starts[l1 - 1] + c1] + new.encode("utf-8") + data[starts[l2 - 1] + c2 :]
    return data.decode("utf-8")


def run(ctx: MacroContext) -> str:
    source, reasons = read_python(ctx, ctx.args["file"])
    if source is None:
        raise MacroError("; ".join(reasons))
    old, new = ctx.args["old"], ctx.args["new"]
    spans = _edits(source.text, source.tree, old)
    source.path.write_text(_apply(source.text, spans, new), encoding="utf-8")
    return f"renamed {old} to {new} in {ctx.args['file']} ({len(spans)} place(s))"


def validate(ctx: MacroContext) -> list[str]:
    rel, old, new = ctx.args["file"], ctx.args["old"], ctx.args["new"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    if len(find_functions(tree, new)) != 1:
        problems.append(f"{rel} does not define {new}")
    if find_functions(tree, old) or any(isinstance(n, ast.Name) and n.id == old for n in ast.walk(tree)):
        problems.append(f"{rel} still uses {old}")
    return problems or test_problems(ctx)
