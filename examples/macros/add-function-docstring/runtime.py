"""add_function_docstring: insert a one-line docstring into a function that has none."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import FunctionNode, find_functions, read_python


def _target(ctx: MacroContext) -> tuple[str, FunctionNode | None, list[str]]:
    """The file's text, the function, and the reasons the macro does not fit."""
    rel, name = ctx.args["file"], ctx.args["function"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return "", None, reasons
    text = source.text
    found = find_functions(source.tree, name)
    if len(found) != 1:
        return text, None, [f"{rel} defines {len(found)} functions named {name} (it must define exactly one)"]
    node = found[0]
    if ast.get_docstring(node, clean=False) is not None:
        reasons.append(f"{name} already has a docstring")
    first = node.body[0]
    line = text.encode("utf-8").splitlines()[first.lineno - 1]
    if line[: first.col_offset].strip():
        reasons.append(f"the body of {name} starts on its def line; a docstring needs a line of its own")
    return text, node, reasons


def preconditions(ctx: MacroContext) -> list[str]:
    return _target(ctx)[2]


def run(ctx: MacroContext) -> str:
    text, node, reasons = _target(ctx)
    if node is None or reasons:
        raise MacroError("; ".join(reasons) or "the function is no longer there")
    first = node.body[0]
    lines = text.encode("utf-8").splitlines(keepends=True)
    body_line = lines[first.lineno - 1]
    newline = b"\r\n" if body_line.endswith(b"\r\n") else b"\n"
    indent = body_line[: first.col_offset]
    lines.insert(first.lineno - 1, indent + f'"""{ctx.args["docstring"]}"""'.encode() + newline)
    ctx.path(ctx.args["file"]).write_bytes(b"".join(lines))
    return f"added a docstring to {ctx.args['function']} in {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    found = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), name)
    if len(found) != 1 or ast.get_docstring(found[0], clean=False) != ctx.args["docstring"]:
        return [f"{name} in {rel} does not carry the given docstring"]
    return test_problems(ctx)
