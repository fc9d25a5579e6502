"""wrap_in_try_except: wrap a function body in try/except that re-raises as another error type."""

from __future__ import annotations

import ast

import libcst as cst

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import (
    FunctionNode,
    ScopedTransformer,
    find_functions,
    is_builtin_exception,
    read_python,
    without_docstring,
)


def _find_function(tree: ast.Module, dotted: str) -> FunctionNode | None:
    return next(iter(find_functions(tree, dotted)), None)


def _module_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def preconditions(ctx: MacroContext) -> list[str]:
    rel, function = ctx.args["file"], ctx.args["function"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return reasons
    node = _find_function(source.tree, function)
    body = without_docstring(node.body) if node is not None else []
    if node is None:
        reasons.append(f"{rel} defines no function {function}")
    elif not body:
        reasons.append(f"{function} has nothing but a docstring")
    elif node.body[0].lineno == node.lineno:
        reasons.append(f"{function} is written on one line")
    elif len(body) == 1 and isinstance(body[0], ast.Try):
        reasons.append(f"the body of {function} is already a try statement")
    names = _module_names(source.tree)
    for key in ("catch", "raise_as"):
        if not (ctx.args[key] in names or is_builtin_exception(ctx.args[key])):
            reasons.append(f"{ctx.args[key]} is neither a built-in exception nor defined or imported in {rel}")
    return reasons


class _Wrap(ScopedTransformer):
    def __init__(self, dotted: str, catch: str, raise_as: str) -> None:
        super().__init__()
        self.target = dotted
        self.catch, self.raise_as = catch, raise_as
        self.done = 0

    def leave_function(self, qualname: str, node: cst.FunctionDef) -> cst.FunctionDef:
        if qualname != self.target or not isinstance(node.body, cst.IndentedBlock):
            return node
        statements = list(node.body.body)
        head = []
        if statements and _is_docstring(statements[0]):
            head = [statements.pop(0)]
        handler = cst.ExceptHandler(
            type=cst.Name(self.catch),
            name=cst.AsName(name=cst.Name("exc")),
            body=cst.IndentedBlock([cst.parse_statement(f"raise {self.raise_as}(str(exc)) from exc\n")]),
        )
        first = (
            statements[0].with_changes(leading_lines=()) if hasattr(statements[0], "leading_lines") else statements[0]
        )
        wrapped = cst.Try(
            body=cst.IndentedBlock([first, *statements[1:]]),
            handlers=[handler],
            leading_lines=getattr(statements[0], "leading_lines", ()),
        )
        self.done += 1
        return node.with_changes(body=node.body.with_changes(body=[*head, wrapped]))


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def run(ctx: MacroContext) -> str:
    rel, function = ctx.args["file"], ctx.args["function"]
    path = ctx.path(rel)
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    wrap = _Wrap(function, ctx.args["catch"], ctx.args["raise_as"])
    result = module.visit(wrap)
    if wrap.done != 1:
        raise MacroError(f"found {wrap.done} functions {function} in {rel}; expected exactly one")
    path.write_text(result.code, encoding="utf-8")
    return f"wrapped the body of {function} in try/except {ctx.args['catch']} -> {ctx.args['raise_as']} in {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel, function, catch = ctx.args["file"], ctx.args["function"], ctx.args["catch"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    node = _find_function(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), function)
    body = without_docstring(node.body) if node is not None else []
    if not (
        len(body) == 1
        and isinstance(body[0], ast.Try)
        and any(h.type is not None and ast.unparse(h.type) == catch for h in body[0].handlers)
    ):
        return [f"the body of {function} in {rel} is not a try statement handling {catch}"]
    return test_problems(ctx)
