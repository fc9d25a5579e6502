"""add_exception_class: append a new exception class to an errors module."""

from __future__ import annotations

import ast
import re

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import bound_name, is_builtin_exception, read_python


def _defined_names(tree: ast.Module) -> dict[str, ast.stmt]:
    names: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.setdefault(stmt.name, stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    names.setdefault(t.id, stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                names.setdefault(bound_name(alias), stmt)
    return names


def preconditions(ctx: MacroContext) -> list[str]:
    rel, name, base = ctx.args["file"], ctx.args["name"], ctx.args["base"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return reasons
    names = _defined_names(source.tree)
    if name in names or is_builtin_exception(name):
        reasons.append(f"{name} already exists in {rel}" if name in names else f"{name} is a built-in exception")
    if not (isinstance(names.get(base), ast.ClassDef) or (base not in names and is_builtin_exception(base))):
        reasons.append(f"{base} is neither a class of {rel} nor a built-in exception")
    return reasons


def _default_docstring(name: str) -> str:
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", name.removesuffix("Error").removesuffix("Exception")).lower()
    return f"Raised on {words or 'an error'}."


def run(ctx: MacroContext) -> str:
    rel, name, base = ctx.args["file"], ctx.args["name"], ctx.args["base"]
    path = ctx.path(rel)
    text = path.read_text(encoding="utf-8")
    if name in _defined_names(ast.parse(text)):
        raise MacroError(f"{rel} already defines {name}")
    doc = ctx.args.get("docstring") or _default_docstring(name)
    body = text.rstrip("\n")
    block = f'class {name}({base}):\n    """{doc}"""\n'
    path.write_text(f"{body}\n\n\n{block}" if body else block, encoding="utf-8")
    return f"added class {name}({base}) to {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name, base = ctx.args["file"], ctx.args["name"], ctx.args["base"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(classes) != 1 or [ast.unparse(b) for b in classes[0].bases] != [base]:
        return [f"{rel} does not define exactly one class {name}({base})"]
    return test_problems(ctx)
