"""replace_in_function: replace an exact text within the body of one named function."""

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


def _body_span(ctx: MacroContext) -> tuple[bytes, tuple[int, int] | None, list[str]]:
    """The file's bytes, the byte span of the function's body, and the reasons the macro does not fit."""
    rel, name = ctx.args["file"], ctx.args["function"]
    try:
        path = ctx.path(rel)
    except PathEscape as exc:
        return b"", None, [str(exc)]
    if not path.is_file():
        return b"", None, [f"{rel} does not exist"]
    data = path.read_bytes()
    try:
        tree = ast.parse(data, filename=rel)
    except SyntaxError as exc:
        return data, None, [f"{rel} does not parse (line {exc.lineno}: {exc.msg})"]
    found = _functions(tree, name)
    if len(found) != 1:
        return data, None, [f"{rel} defines {len(found)} functions named {name} (it must define exactly one)"]
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    first, node = found[0].body[0], found[0]
    span = (starts[first.lineno - 1] + first.col_offset, starts[node.end_lineno - 1] + node.end_col_offset)
    count = data[span[0] : span[1]].count(ctx.args["old"].encode("utf-8"))
    if count != 1:
        return (
            data,
            span,
            [f"the text to replace occurs {count} times in the body of {name} (it must occur exactly once)"],
        )
    return data, span, []


def preconditions(ctx: MacroContext) -> list[str]:
    return _body_span(ctx)[2]


def run(ctx: MacroContext) -> str:
    data, span, reasons = _body_span(ctx)
    if span is None or reasons:
        raise MacroError("; ".join(reasons) or "the function is no longer there")
    body = data[span[0] : span[1]].replace(ctx.args["old"].encode("utf-8"), ctx.args["new"].encode("utf-8"), 1)
    ctx.path(ctx.args["file"]).write_bytes(data[: span[0]] + body + data[span[1] :])
    return f"replaced the text in the body of {ctx.args['function']} in {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    if len(_functions(ast.parse(ctx.path(rel).read_bytes()), name)) != 1:
        return [f"{rel} no longer defines {name}"]
    return test_problems(ctx)
