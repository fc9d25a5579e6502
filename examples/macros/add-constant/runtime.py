"""add_constant: add a module-level constant after a module's imports."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import insert_after_imports, read_python


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["name"]
    source, reasons = read_python(ctx, rel, dot_py=True)
    if source is None:
        return reasons
    if name in module_bindings(source.tree):
        reasons.append(f"{rel} already defines {name} at module level")
    try:
        ast.parse(ctx.args["value"], mode="eval")
    except SyntaxError:
        reasons.append(f"the value {ctx.args['value']!r} does not parse as a Python expression")
    return reasons


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    source = path.read_text(encoding="utf-8")
    if ctx.args["name"] in module_bindings(ast.parse(source)):
        raise MacroError(f"{ctx.args['file']} changed while the macro ran: it now defines {ctx.args['name']}")
    path.write_text(insert_after_imports(source, f"{ctx.args['name']} = {ctx.args['value']}"), encoding="utf-8")
    return f"added {ctx.args['name']} = {ctx.args['value']} to {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["name"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    expected = ast.dump(ast.parse(ctx.args["value"], mode="eval").body)
    values = [
        ast.dump(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    if values != [expected]:
        return [f"{rel} does not assign {name} = {ctx.args['value']} exactly once at module level"]
    return test_problems(ctx)


def module_bindings(tree: ast.Module) -> set[str]:
    """Names bound by module-level statements (not inside functions or classes)."""
    names: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names
