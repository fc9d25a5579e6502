"""replace_in_function: replace an exact text within the body of one named function."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import existing_file, find_functions, line_offsets, node_span


def _body_span(ctx: MacroContext) -> tuple[bytes, tuple[int, int] | None, list[str]]:
    """The file's bytes, the byte span of the function's body, and the reasons the macro does not fit."""
    rel, name = ctx.args["file"], ctx.args["function"]
    path, reasons = existing_file(ctx, rel)
    if path is None:
        return b"", None, reasons
    data = path.read_bytes()
    try:
        tree = ast.parse(data, filename=rel)
    except SyntaxError as exc:
        return data, None, [f"{rel} does not parse (line {exc.lineno}: {exc.msg})"]
    found = find_functions(tree, name)
    if len(found) != 1:
        return data, None, [f"{rel} defines {len(found)} functions named {name} (it must define exactly one)"]
    starts = line_offsets(data)
    first, node = found[0].body[0], found[0]
    span = (node_span(starts, first)[0], node_span(starts, node)[1])
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
    if len(find_functions(ast.parse(ctx.path(rel).read_bytes()), name)) != 1:
        return [f"{rel} no longer defines {name}"]
    return test_problems(ctx)
