"""change_default_argument: change the default value of one parameter of one function."""

from __future__ import annotations

import ast

import libcst as cst

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import ScopedTransformer, find_functions, parameter_defaults, read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name, parameter = ctx.args["file"], ctx.args["function"], ctx.args["parameter"]
    source, reasons = read_python(ctx, rel, dot_py=True)
    if source is None:
        return reasons
    try:
        new = ast.dump(ast.parse(ctx.args["default"], mode="eval").body)
    except SyntaxError:
        return [f"the default {ctx.args['default']!r} does not parse as a Python expression"]
    functions = find_functions(source.tree, name)
    if len(functions) != 1:
        return [
            f"{rel} defines {len(functions)} functions {name} (it must define exactly one, top-level or Class.method)"
        ]
    current = parameter_defaults(functions[0].args)
    if parameter not in current:
        return [
            f"{name} has no parameter {parameter} with a default "
            f"(parameters with defaults: {', '.join(current) or 'none'})"
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
            f"{ctx.args['file']} changed while the macro ran: "
            f"the parameter {ctx.args['parameter']} of {ctx.args['function']} is not there once"
        )
    path.write_text(updated.code, encoding="utf-8")
    return (
        f"changed the default of {ctx.args['parameter']} in {ctx.args['function']} "
        f"from {change.old} to {ctx.args['default']}"
    )


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    functions = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), ctx.args["function"])
    default = parameter_defaults(functions[0].args).get(ctx.args["parameter"]) if len(functions) == 1 else None
    if default is None or ast.dump(default) != ast.dump(ast.parse(ctx.args["default"], mode="eval").body):
        return [f"the default of {ctx.args['parameter']} in {ctx.args['function']} is not {ctx.args['default']}"]
    return test_problems(ctx)


class _ChangeDefault(ScopedTransformer):
    def __init__(self, dotted: str, parameter: str, default: str) -> None:
        super().__init__()
        self.target, self.parameter, self.default = dotted, parameter, default
        self.count, self.old = 0, ""

    def leave_function(self, qualname: str, node: cst.FunctionDef) -> cst.FunctionDef:
        if qualname != self.target:
            return node
        params = node.params
        groups = {}
        for group in ("posonly_params", "params", "kwonly_params"):
            items = list(getattr(params, group))
            for index, param in enumerate(items):
                if param.name.value == self.parameter and param.default is not None:
                    self.count += 1
                    self.old = cst.Module([]).code_for_node(param.default)
                    items[index] = param.with_changes(default=cst.parse_expression(self.default))
            groups[group] = items
        return node.with_changes(params=params.with_changes(**groups))
