"""add_test_case: append a test function with the given body to a test file."""

from __future__ import annotations

import ast
import textwrap

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import bound_name, read_python

TAIL_LINES = 15


def _function(ctx: MacroContext) -> str:
    body = textwrap.dedent(ctx.args["body"].replace("\r\n", "\n")).strip("\n")
    return f"def {ctx.args['name']}():\n{textwrap.indent(body, '    ')}\n"


def _defines(tree: ast.Module, name: str) -> list[int]:
    """Lines where the module's top level binds ``name``."""
    lines = []
    for stmt in tree.body:
        if (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.name == name) or (
            isinstance(stmt, (ast.Import, ast.ImportFrom)) and any(bound_name(a) == name for a in stmt.names)
        ):
            lines.append(stmt.lineno)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                lines.append(stmt.lineno)
    return lines


def preconditions(ctx: MacroContext) -> list[str]:
    source, reasons = read_python(ctx, ctx.args["file"])
    if source is None:
        return reasons
    lines = _defines(source.tree, ctx.args["name"])
    if lines:
        reasons.append(f"{ctx.args['file']} already binds {ctx.args['name']} (line {lines[0]})")
    try:
        ast.parse(_function(ctx))
    except SyntaxError as exc:
        reasons.append(f"the body does not parse as a function body (line {(exc.lineno or 1) - 1}: {exc.msg})")
    return reasons


def run(ctx: MacroContext) -> str:
    source, reasons = read_python(ctx, ctx.args["file"])
    if source is None:
        raise MacroError("; ".join(reasons))
    head = source.text.rstrip() + "\n\n\n" if source.text.strip() else ""
    ctx.path(ctx.args["file"]).write_text(head + _function(ctx), encoding="utf-8")
    return f"added {ctx.args['name']} to {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["name"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    if not any(isinstance(s, ast.FunctionDef) and s.name == name for s in tree.body):
        return [f"{rel} does not define {name}"]
    own = ctx.run_tests([f"{rel}::{name}"])
    if not own.passed:
        status = "timed out" if own.timed_out else f"exit code {own.exit_code}"
        return [f"the new test {name} does not pass ({status}):\n{own.tail(TAIL_LINES)}"]
    return test_problems(ctx)
