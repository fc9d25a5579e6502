"""add_type_hints_return: add a return annotation to one function that lacks it."""

from __future__ import annotations

import ast

import libcst as cst

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import ScopedTransformer, find_functions, read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["function"]
    source, reasons = read_python(ctx, rel, dot_py=True)
    if source is None:
        return reasons
    try:
        ast.parse(ctx.args["annotation"], mode="eval")
    except SyntaxError:
        reasons.append(f"the annotation {ctx.args['annotation']!r} does not parse as a Python expression")
    functions = find_functions(source.tree, name)
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
            f"{ctx.args['file']} changed while the macro ran: "
            f"{ctx.args['function']} is not there once without a return annotation"
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


class _Annotate(ScopedTransformer):
    def __init__(self, dotted: str, annotation: str) -> None:
        super().__init__()
        self.target, self.annotation, self.count = dotted, annotation, 0

    def leave_function(self, qualname: str, node: cst.FunctionDef) -> cst.FunctionDef:
        if qualname != self.target or node.returns is not None:
            return node
        self.count += 1
        return node.with_changes(returns=cst.Annotation(cst.parse_expression(self.annotation)))
