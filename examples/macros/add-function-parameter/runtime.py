"""add_function_parameter: add a keyword parameter with a default to a top-level function."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import find_functions, parameter_defaults, read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name, parameter = ctx.args["file"], ctx.args["function"], ctx.args["parameter"]
    source, unreadable = read_python(ctx, rel, dot_py=True)
    if source is None:
        return unreadable
    reasons = [f"{what} does not parse as a Python expression" for what in _bad_expressions(ctx)]
    functions = find_functions(source.tree, name)
    if len(functions) != 1:
        return reasons + [
            f"{rel} defines {len(functions)} top-level functions named {name} (it must define exactly one)"
        ]
    function = functions[0]
    if parameter in _parameter_names(function.args):
        reasons.append(f"{name} already has a parameter named {parameter}")
    if any(isinstance(n, ast.Name) and n.id == parameter for n in ast.walk(function)):
        reasons.append(f"the body of {name} already uses the name {parameter}; a parameter would shadow it")
    return reasons


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    name = ctx.args["function"]
    matches = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(matches) != 1:
        raise MacroError(f"{ctx.args['file']} changed while the macro ran: {name} is no longer defined once")
    body = [_with_parameter(s, ctx.args) if s is matches[0] else s for s in module.body]
    path.write_text(module.with_changes(body=body).code, encoding="utf-8")
    return f"added the parameter {ctx.args['parameter']}={ctx.args['default']} to {name} in {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    functions = find_functions(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), ctx.args["function"])
    default = parameter_defaults(functions[0].args).get(ctx.args["parameter"]) if len(functions) == 1 else None
    expected = ast.parse(ctx.args["default"], mode="eval").body
    if default is None or ast.dump(default) != ast.dump(expected):
        return [f"{ctx.args['function']} in {rel} lacks the parameter {ctx.args['parameter']}={ctx.args['default']}"]
    return test_problems(ctx)


def _bad_expressions(ctx: MacroContext) -> list[str]:
    bad = []
    for key in ("default", "annotation"):
        if key in ctx.args:
            try:
                ast.parse(ctx.args[key], mode="eval")
            except SyntaxError:
                bad.append(f"the {key} {ctx.args[key]!r}")
    return bad


def _parameter_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def _with_parameter(function: cst.FunctionDef, args: dict[str, Any]) -> cst.FunctionDef:
    annotation = args.get("annotation")
    tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    new = cst.Param(
        cst.Name(args["parameter"]),
        annotation=cst.Annotation(cst.parse_expression(annotation)) if annotation else None,
        equal=cst.MaybeSentinel.DEFAULT if annotation else tight,
        default=cst.parse_expression(args["default"]),
    )
    params = function.params
    keyword_only = isinstance(params.star_arg, cst.Param) or bool(params.kwonly_params)
    group = list(params.kwonly_params if keyword_only else params.params)
    if group and isinstance(group[-1].comma, cst.Comma):
        # A trailing or explicit comma: the new parameter takes over the last one's comma (and the
        # whitespace after it); the last one gets a comma spaced like the ones before it.
        last = group[-1].comma.whitespace_after
        if len(group) > 1 and isinstance(group[-2].comma, cst.Comma):
            between = group[-2].comma.whitespace_after
        elif isinstance(last, cst.ParenthesizedWhitespace):
            between = function.whitespace_before_params
        else:
            between = last
        new = new.with_changes(comma=group[-1].comma)
        group[-1] = group[-1].with_changes(comma=cst.Comma(whitespace_after=between))
    group.append(new)
    changed = params.with_changes(kwonly_params=group) if keyword_only else params.with_changes(params=group)
    return function.with_changes(params=changed)
