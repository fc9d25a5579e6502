"""delete_function: delete a top-level function that nothing else in its module refers to."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import find_functions, read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    source, reasons = read_python(ctx, rel, dot_py=True)
    if source is None:
        return reasons
    tree = source.tree
    functions = find_functions(tree, name)
    bindings = [
        n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
    ]
    if len(functions) != 1 or len(bindings) != 1:
        return [f"{rel} does not define exactly one top-level function {name}"]
    lines = references(tree, functions[0])
    if lines:
        return [f"{name} is referred to elsewhere in {rel} (line(s) {', '.join(map(str, lines))})"]
    return []


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    source = path.read_text(encoding="utf-8")
    functions = find_functions(ast.parse(source), ctx.args["function"])
    if len(functions) != 1:
        raise MacroError(f"{ctx.args['file']} changed while the macro ran: {ctx.args['function']} is not defined once")
    node = functions[0]
    lines = source.splitlines(keepends=True)
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1  # comments written directly above the function belong to it
    end = node.end_lineno or node.lineno
    before, after = "".join(lines[:start]), "".join(lines[end:]).lstrip("\n")
    if not after:
        text = before.rstrip("\n") + "\n" if before.strip() else ""
    else:
        text = before + after
    path.write_text(text, encoding="utf-8")
    return f"deleted the function {ctx.args['function']} ({end - start} lines) from {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    if find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), ctx.args["function"]):
        return [f"{rel} still defines {ctx.args['function']}"]
    return test_problems(ctx)


def references(tree: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """Lines outside the function that use its name: as a name, or as a string such as an __all__ entry."""
    inside = {id(n) for n in ast.walk(function)}
    name = function.name
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if id(node) not in inside
            and (
                (isinstance(node, ast.Name) and node.id == name)
                or (isinstance(node, ast.Constant) and node.value == name)
            )
        }
    )
