"""add_type_hints_return: add a return annotation to one function that lacks it."""

from __future__ import annotations

import ast

import libcst as cst

from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.runtime import MacroContext, MacroError
from pytest_granularity.workspace import PathEscape


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    try:
        path = ctx.path(rel)
    except PathEscape as exc:
        return [str(exc)]
    if path.suffix != ".py" or not path.is_file():
        return [f"{rel} is not a Python file"]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        return [f"{rel} does not parse (line {exc.lineno})"]
    reasons = []
    try:
        ast.parse(ctx.args["annotation"], mode="eval")
    except SyntaxError:
        reasons.append(f"the annotation {ctx.args['annotation']!r} does not parse as a Python expression")
    functions = find_functions(tree, name)
    if len(functions) != 1:
        return reasons + [
            f"{rel} defines {len(functions)} functions {name} (it must define exactly one, top-level or Class.method)"
        ]
    if functions[0].returns is not None:
        reasons.append(f"{name} already has the return annotation {ast.unparse(functions[0].returns)}")
    return reasons


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    annotate = _Annotate(ctx.args["function"], ctx.args["annotation"])
    updated = module.visit(annotate)
    if annotate.count != 1:
        raise MacroError(
            f"{ctx.args['file']} changed while the macro ran: {ctx.args['function']} is not there once without a return annotation"
        )
    path.write_text(updated.code, encoding="utf-8")
    return f"annotated {ctx.args['function']} in {ctx.args['file']} as returning {ctx.args['annotation']}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    functions = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), ctx.args["function"])
    expected = ast.dump(ast.parse(ctx.args["annotation"], mode="eval").body)
    if len(functions) != 1 or functions[0].returns is None or ast.dump(functions[0].returns) != expected:
        return [f"{ctx.args['function']} in {rel} is not annotated as returning {ctx.args['annotation']}"]
    return test_problems(ctx)


def find_functions(tree: ast.Module, dotted: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """``name`` (a top-level function) or ``Class.name`` (a method of a top-level class)."""
    *owner, name = dotted.split(".")
    body = tree.body
    if owner:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner[0]]
        body = [item for c in classes for item in c.body]
    return [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]


class _Annotate(cst.CSTTransformer):
    def __init__(self, dotted: str, annotation: str) -> None:
        self.target, self.annotation, self.count = dotted, annotation, 0
        self.scope: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(node.name.value)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        here = ".".join(self.scope)
        self.scope.pop()
        if here != self.target or updated.returns is not None:
            return updated
        self.count += 1
        return updated.with_changes(returns=cst.Annotation(cst.parse_expression(self.annotation)))
