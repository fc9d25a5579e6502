"""change_error_message: reword the message of one raise inside a named function."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import FunctionNode, find_functions, line_offsets, node_span, read_python


def _find_function(tree: ast.Module, dotted: str) -> FunctionNode | None:
    return next(iter(find_functions(tree, dotted)), None)


def _messages(function: ast.AST) -> list[ast.expr]:
    """The first argument of every ``raise X(...)`` in the function (not in nested functions)."""
    found = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            found.append(node.exc.args[0])
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _matching(function: ast.AST, message: str) -> list[ast.Constant]:
    return [m for m in _messages(function) if isinstance(m, ast.Constant) and m.value == message]


def _load(ctx: MacroContext) -> tuple[str, FunctionNode | None]:
    text = ctx.path(ctx.args["file"]).read_text(encoding="utf-8")
    return text, _find_function(ast.parse(text), ctx.args["function"])


def preconditions(ctx: MacroContext) -> list[str]:
    rel, function, old = ctx.args["file"], ctx.args["function"], ctx.args["old_message"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return reasons
    node = _find_function(source.tree, function)
    if node is None:
        return [f"{rel} defines no function {function}"]
    matches = _matching(node, old)
    if len(matches) != 1:
        built = any(isinstance(m, ast.JoinedStr) and old.split("{")[0] in ast.unparse(m) for m in _messages(node))
        hint = " (it is an f-string or built at run time)" if built and not matches else ""
        reasons.append(f"{function} has {len(matches)} raise(s) with the message {old!r}; exactly one is needed{hint}")
    if ctx.args["new_message"] == old:
        reasons.append("new_message is the same as old_message")
    return reasons


def _literal(original: str, value: str) -> str:
    quote = original[-1]
    prefix = original[: original.index(quote)].replace("r", "").replace("R", "")
    if original.endswith(quote * 3) or any(c in value for c in (quote, "\\", "\n", "\r")):
        return prefix + repr(value)
    return f"{prefix}{quote}{value}{quote}"


def run(ctx: MacroContext) -> str:
    rel, function, old = ctx.args["file"], ctx.args["function"], ctx.args["old_message"]
    text, node = _load(ctx)
    matches = _matching(node, old) if node is not None else []
    if len(matches) != 1:
        raise MacroError(f"{rel} changed: {function} no longer raises {old!r} exactly once")
    target = matches[0]
    data = text.encode("utf-8")
    start, end = node_span(line_offsets(data), target)
    original = data[start:end].decode("utf-8")
    new = _literal(original, ctx.args["new_message"])
    ctx.path(rel).write_bytes(data[:start] + new.encode("utf-8") + data[end:])
    return f"changed the message in {function} ({rel}, line {target.lineno}) to {ctx.args['new_message']!r}"


def validate(ctx: MacroContext) -> list[str]:
    rel, function = ctx.args["file"], ctx.args["function"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    _, node = _load(ctx)
    if node is None:
        return [f"{rel} no longer defines {function}"]
    if _matching(node, ctx.args["old_message"]) or len(_matching(node, ctx.args["new_message"])) != 1:
        return [f"{function} does not raise with exactly the new message"]
    return test_problems(ctx)
