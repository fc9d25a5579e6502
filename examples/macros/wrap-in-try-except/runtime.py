"""wrap_in_try_except: wrap a function body in try/except that re-raises as another error type."""

from __future__ import annotations

import ast
import builtins

import libcst as cst

from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.runtime import MacroContext, MacroError

Function = (ast.FunctionDef, ast.AsyncFunctionDef)


def _find_function(tree: ast.Module, dotted: str) -> ast.AST | None:
    scope: list[ast.stmt] = tree.body
    *owners, name = dotted.split(".")
    for owner in owners:
        cls = next((s for s in scope if isinstance(s, ast.ClassDef) and s.name == owner), None)
        if cls is None:
            return None
        scope = cls.body
    return next((s for s in scope if isinstance(s, Function) and s.name == name), None)


def _module_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, *Function)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _known(name: str, names: set[str]) -> bool:
    value = getattr(builtins, name, None)
    return name in names or (isinstance(value, type) and issubclass(value, BaseException))


def _body(node: ast.AST) -> list[ast.stmt]:
    first = node.body[0]
    docstring = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    )
    return node.body[1:] if docstring else node.body


def preconditions(ctx: MacroContext) -> list[str]:
    rel, function = ctx.args["file"], ctx.args["function"]
    path = ctx.path(rel)
    if not path.is_file():
        return [f"{rel} does not exist"]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        return [f"{rel} does not parse (line {exc.lineno}: {exc.msg})"]
    reasons = []
    node = _find_function(tree, function)
    if node is None:
        reasons.append(f"{rel} defines no function {function}")
    elif not _body(node):
        reasons.append(f"{function} has nothing but a docstring")
    elif node.body[0].lineno == node.lineno:
        reasons.append(f"{function} is written on one line")
    elif len(_body(node)) == 1 and isinstance(_body(node)[0], ast.Try):
        reasons.append(f"the body of {function} is already a try statement")
    names = _module_names(tree)
    for key in ("catch", "raise_as"):
        if not _known(ctx.args[key], names):
            reasons.append(f"{ctx.args[key]} is neither a built-in exception nor defined or imported in {rel}")
    return reasons


class _Wrap(cst.CSTTransformer):
    def __init__(self, dotted: str, catch: str, raise_as: str) -> None:
        self.path = dotted.split(".")
        self.stack: list[str] = []
        self.catch, self.raise_as = catch, raise_as
        self.done = 0

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        return True

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.stack.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.stack.append(node.name.value)
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        matched = self.stack == self.path
        self.stack.pop()
        if not matched or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        statements = list(updated.body.body)
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
        return updated.with_changes(body=updated.body.with_changes(body=[*head, wrapped]))


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
    body = _body(node) if node is not None else []
    if not (
        len(body) == 1
        and isinstance(body[0], ast.Try)
        and any(h.type is not None and ast.unparse(h.type) == catch for h in body[0].handlers)
    ):
        return [f"the body of {function} in {rel} is not a try statement handling {catch}"]
    return test_problems(ctx)
