"""add_dataclass_field: add a field with a default to a named @dataclass."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import is_docstring, last_line, read_python


def _is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id == "dataclass"
    return isinstance(target, ast.Attribute) and target.attr == "dataclass"


def _find_class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    return next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)


def _attribute_names(cls: ast.ClassDef) -> list[str]:
    names = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.append(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            names.extend(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(stmt.name)
    return names


def _is_expression(source: str) -> bool:
    try:
        ast.parse(source, mode="eval")
    except SyntaxError:
        return False
    return "\n" not in source


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name, field = ctx.args["file"], ctx.args["class_name"], ctx.args["field"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return reasons
    cls = _find_class(source.tree, name)
    if cls is None:
        reasons.append(f"{rel} defines no module-level class {name}")
    else:
        if not any(_is_dataclass_decorator(d) for d in cls.decorator_list):
            reasons.append(f"{name} is not decorated with @dataclass")
        if field in _attribute_names(cls):
            reasons.append(f"{name} already has an attribute {field}")
        if cls.body and cls.body[0].lineno == cls.lineno:
            reasons.append(f"{name} is written on one line")
    for key in ("type", "default"):
        if not _is_expression(ctx.args[key]):
            reasons.append(f"{key} {ctx.args[key]!r} is not a one-line Python expression")
    return reasons


def run(ctx: MacroContext) -> str:
    rel, name, field = ctx.args["file"], ctx.args["class_name"], ctx.args["field"]
    path = ctx.path(rel)
    text = path.read_text(encoding="utf-8")
    cls = _find_class(ast.parse(text), name)
    if cls is None:
        raise MacroError(f"{rel} no longer defines {name}")
    fields = [s for s in cls.body if isinstance(s, ast.AnnAssign)]
    body = cls.body
    if fields:
        anchor, indent = last_line(fields[-1]), fields[-1].col_offset
    elif is_docstring(body[0]):
        anchor, indent = last_line(body[0]), body[0].col_offset
    else:
        anchor, indent = body[0].lineno - 1, body[0].col_offset
    lines = text.splitlines(keepends=True)
    line = f"{' ' * indent}{field}: {ctx.args['type']} = {ctx.args['default']}\n"
    lines.insert(anchor, line)
    path.write_text("".join(lines), encoding="utf-8")
    return f"added {field}: {ctx.args['type']} = {ctx.args['default']} to {name} in {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name, field = ctx.args["file"], ctx.args["class_name"], ctx.args["field"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    cls = _find_class(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), name)
    if cls is None or _attribute_names(cls).count(field) != 1:
        return [f"{name} in {rel} does not have exactly one field {field}"]
    return test_problems(ctx)
