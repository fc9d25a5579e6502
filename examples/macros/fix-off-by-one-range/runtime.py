"""fix_off_by_one_range: change one range() bound inside a named function."""

from __future__ import annotations

import ast

from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.runtime import MacroContext, MacroError
from pytest_granularity.workspace import PathEscape

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.Module, qualname: str) -> list[Function]:
    """The defs named ``f`` (top level) or ``Class.f`` (a method of a top-level class)."""
    *classes, name = qualname.split(".")
    body = tree.body
    for cls in classes:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        if len(found) != 1:
            return []
        body = found[0].body
    return [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]


def _expression(text: str) -> str | None:
    """The expression's AST dump (positions left out), or None when it is not an expression."""
    try:
        return ast.dump(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None


def _range_args(function: Function, dump: str) -> list[ast.expr]:
    return [
        arg
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
        for arg in node.args
        if ast.dump(arg) == dump
    ]


def _find(ctx: MacroContext) -> tuple[str, list[ast.expr], list[str]]:
    """The file's text, the matching range() arguments, and the reasons the macro does not fit."""
    rel, name = ctx.args["file"], ctx.args["function"]
    old, new = _expression(ctx.args["old_expr"]), _expression(ctx.args["new_expr"])
    reasons = [
        f"{key} is not a Python expression" for key, dump in (("old_expr", old), ("new_expr", new)) if dump is None
    ]
    if old is not None and old == new:
        reasons.append("old_expr and new_expr are the same expression")
    try:
        path = ctx.path(rel)
    except PathEscape as exc:
        return "", [], reasons + [str(exc)]
    if not path.is_file():
        return "", [], reasons + [f"{rel} does not exist"]
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as exc:
        return text, [], reasons + [f"{rel} does not parse (line {exc.lineno}: {exc.msg})"]
    found = _functions(tree, name)
    if len(found) != 1:
        return text, [], reasons + [f"{rel} defines {len(found)} functions named {name} (it must define exactly one)"]
    matches = _range_args(found[0], old) if old is not None else []
    if old is not None and len(matches) != 1:
        reasons.append(
            f"{name} has {len(matches)} range() arguments equal to {ctx.args['old_expr'].strip()} (it must have exactly one)"
        )
    return text, matches, reasons


def preconditions(ctx: MacroContext) -> list[str]:
    return _find(ctx)[2]


def run(ctx: MacroContext) -> str:
    text, matches, reasons = _find(ctx)
    if reasons or len(matches) != 1:
        raise MacroError("; ".join(reasons) or "the range() bound is no longer there")
    arg = matches[0]
    data = text.encode("utf-8")
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    begin = starts[arg.lineno - 1] + arg.col_offset
    end = starts[arg.end_lineno - 1] + arg.end_col_offset
    data = data[:begin] + ctx.args["new_expr"].strip().encode("utf-8") + data[end:]
    ctx.path(ctx.args["file"]).write_bytes(data)
    return f"changed range({ctx.args['old_expr'].strip()}) to range({ctx.args['new_expr'].strip()}) in {ctx.args['function']} (line {arg.lineno})"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    found = _functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), name)
    old, new = _expression(ctx.args["old_expr"]), _expression(ctx.args["new_expr"])
    if len(found) != 1 or _range_args(found[0], old) or not _range_args(found[0], new):
        return [
            f"the range() in {name} does not use {ctx.args['new_expr'].strip()} instead of {ctx.args['old_expr'].strip()}"
        ]
    return test_problems(ctx)
