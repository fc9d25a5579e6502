"""change_default_argument: change the default value of one parameter of one function."""

from __future__ import annotations

import ast

import libcst as cst

from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.runtime import MacroContext, MacroError
from pytest_granularity.workspace import PathEscape


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name, parameter = ctx.args["file"], ctx.args["function"], ctx.args["parameter"]
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
    try:
        new = ast.dump(ast.parse(ctx.args["default"], mode="eval").body)
    except SyntaxError:
        return [f"the default {ctx.args['default']!r} does not parse as a Python expression"]
    functions = find_functions(tree, name)
    if len(functions) != 1:
        return [
            f"{rel} defines {len(functions)} functions {name} (it must define exactly one, top-level or Class.method)"
        ]
    current = defaults(functions[0].args)
    if parameter not in current:
        return [
            f"{name} has no parameter {parameter} with a default (parameters with defaults: {', '.join(current) or 'none'})"
        ]
    if ast.dump(current[parameter]) == new:
        return [f"the default of {parameter} is already {ctx.args['default']}"]
    return []


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    change = _ChangeDefault(ctx.args["function"], ctx.args["parameter"], ctx.args["default"])
    updated = module.visit(change)
    if change.count != 1:
        raise MacroError(
            f"{ctx.args['file']} changed while the macro ran: the parameter {ctx.args['parameter']} of {ctx.args['function']} is not there once"
        )
    path.write_text(updated.code, encoding="utf-8")
    return f"changed the default of {ctx.args['parameter']} in {ctx.args['function']} from {change.old} to {ctx.args['default']}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    functions = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), ctx.args["function"])
    default = defaults(functions[0].args).get(ctx.args["parameter"]) if len(functions) == 1 else None
    if default is None or ast.dump(default) != ast.dump(ast.parse(ctx.args["default"], mode="eval").body):
        return [f"the default of {ctx.args['parameter']} in {ctx.args['function']} is not {ctx.args['default']}"]
    return test_problems(ctx)


def find_functions(tree: ast.Module, dotted: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """``name`` (a top-level function) or ``Class.name`` (a method of a top-level class)."""
    *owner, name = dotted.split(".")
    body = tree.body
    if owner:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner[0]]
        body = [item for c in classes for item in c.body]
    return [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]


def defaults(args: ast.arguments) -> dict[str, ast.expr]:
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults) :], args.defaults)}
    found.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return found


class _ChangeDefault(cst.CSTTransformer):
    def __init__(self, dotted: str, parameter: str, default: str) -> None:
        self.target, self.parameter, self.default = dotted, parameter, default
        self.scope: list[str] = []
        self.count, self.old = 0, ""

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
        if here != self.target:
            return updated
        params = updated.params
        groups = {}
        for group in ("posonly_params", "params", "kwonly_params"):
            items = list(getattr(params, group))
            for index, param in enumerate(items):
                if param.name.value == self.parameter and param.default is not None:
                    self.count += 1
                    self.old = cst.Module([]).code_for_node(param.default)
                    items[index] = param.with_changes(default=cst.parse_expression(self.default))
            groups[group] = items
        return updated.with_changes(params=params.with_changes(**groups))
