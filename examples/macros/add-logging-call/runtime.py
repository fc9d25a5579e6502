"""add_logging_call: add logger.debug(message) as the first statement of a named function."""

from __future__ import annotations

import ast
import io
import json

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import (
    FunctionNode,
    find_functions,
    is_docstring,
    last_line,
    read_python,
    without_docstring,
)


def _find_function(tree: ast.Module, dotted: str) -> FunctionNode | None:
    return next(iter(find_functions(tree, dotted)), None)


def _defines_logger(tree: ast.Module) -> bool:
    for stmt in tree.body:
        targets = (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "logger" for t in targets):
            return True
    return False


def _first_statement(node: FunctionNode) -> ast.stmt | None:
    body = without_docstring(node.body)
    return body[0] if body else None


def _is_debug_call(stmt: ast.stmt | None, message: str) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and ast.unparse(stmt.value.func) == "logger.debug"
        and len(stmt.value.args) == 1
        and isinstance(stmt.value.args[0], ast.Constant)
        and stmt.value.args[0].value == message
    )


def preconditions(ctx: MacroContext) -> list[str]:
    rel, function, message = ctx.args["file"], ctx.args["function"], ctx.args["message"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return reasons
    if not _defines_logger(source.tree):
        reasons.append(f"{rel} defines no module-level logger")
    node = _find_function(source.tree, function)
    if node is None:
        reasons.append(f"{rel} defines no function {function}")
    elif node.body[0].lineno == node.lineno:
        reasons.append(f"{function} is written on one line")
    elif _is_debug_call(_first_statement(node), message):
        reasons.append(f"{function} already starts with logger.debug({message!r})")
    return reasons


def run(ctx: MacroContext) -> str:
    rel, function, message = ctx.args["file"], ctx.args["function"], ctx.args["message"]
    path = ctx.path(rel)
    text = path.read_text(encoding="utf-8")
    node = _find_function(ast.parse(text), function)
    if node is None:
        raise MacroError(f"{rel} no longer defines {function}")
    indent = " " * node.body[0].col_offset
    lines = io.StringIO(text, newline="").readlines()
    if is_docstring(node.body[0]):
        at = last_line(node.body[0])
    else:
        # comments directly above the first statement stay with it: insert above them
        at = node.body[0].lineno - 1
        while at - 1 >= node.lineno and lines[at - 1].strip().startswith("#"):
            at -= 1
    lines.insert(at, f"{indent}logger.debug({json.dumps(message, ensure_ascii=False)})\n")
    path.write_text("".join(lines), encoding="utf-8")
    return f"added logger.debug({message!r}) at the top of {function} in {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel, function, message = ctx.args["file"], ctx.args["function"], ctx.args["message"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    node = _find_function(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), function)
    if node is None or not _is_debug_call(_first_statement(node), message):
        return [f"{function} in {rel} does not start with logger.debug({message!r})"]
    return test_problems(ctx)
