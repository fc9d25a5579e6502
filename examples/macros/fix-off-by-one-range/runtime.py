"""fix_off_by_one_range: change one range() bound inside a named function."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import FunctionNode, find_functions, line_offsets, node_span, read_python


def _expression(text: str) -> str | None:
    """The expression's AST dump (positions left out), or None when it is not an expression."""
    try:
        return ast.dump(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None


def _range_args(function: FunctionNode, dump: str | None) -> list[ast.expr]:
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
    source, unreadable = read_python(ctx, rel)
    if source is None:
        return "", [], reasons + unreadable
    text = source.text
    found = find_functions(source.tree, name)
    if len(found) != 1:
        return text, [], reasons + [f"{rel} defines {len(found)} functions named {name} (it must define exactly one)"]
    matches = _range_args(found[0], old) if old is not None else []
    if old is not None and len(matches) != 1:
        reasons.append(
            f"{name} has {len(matches)} range() arguments equal to {ctx.args['old_expr'].strip()} "
            "(it must have exactly one)"
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
    starts = line_offsets(data)
    begin, end = node_span(starts, arg)
    data = data[:begin] + ctx.args["new_expr"].strip().encode("utf-8") + data[end:]
    ctx.path(ctx.args["file"]).write_bytes(data)
    return (
        f"changed range({ctx.args['old_expr'].strip()}) to range({ctx.args['new_expr'].strip()}) "
        f"in {ctx.args['function']} (line {arg.lineno})"
    )


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    found = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), name)
    old, new = _expression(ctx.args["old_expr"]), _expression(ctx.args["new_expr"])
    if len(found) != 1 or _range_args(found[0], old) or not _range_args(found[0], new):
        return [
            f"the range() in {name} does not use {ctx.args['new_expr'].strip()} "
            f"instead of {ctx.args['old_expr'].strip()}"
        ]
    return test_problems(ctx)
