"""extract_constant: replace a literal inside one function by a new module-level constant."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import (
    find_functions,
    insert_after_imports,
    line_offsets,
    node_span,
    read_python,
    without_docstring,
)


def preconditions(ctx: MacroContext) -> list[str]:
    rel, function, literal, name = ctx.args["file"], ctx.args["function"], ctx.args["literal"], ctx.args["name"]
    found, reasons = read_python(ctx, rel, dot_py=True)
    if found is None:
        return reasons
    source, tree = found.text, found.tree
    try:
        ast.literal_eval(literal)
    except (SyntaxError, ValueError, TypeError):
        return [f"{literal!r} is not a Python literal (a number, string, bytes, or a tuple/list/set/dict of them)"]
    functions = find_functions(tree, function)
    if len(functions) != 1:
        return [
            f"{rel} defines {len(functions)} functions {function} "
            "(it must define exactly one, top-level or Class.method)"
        ]
    if not occurrences(source, functions[0], literal):
        reasons.append(f"{function} holds no literal written exactly {literal}")
    if name in names_in(tree):
        reasons.append(f"{rel} already uses the name {name}")
    return reasons


def run(ctx: MacroContext) -> str:
    rel, literal, name = ctx.args["file"], ctx.args["literal"], ctx.args["name"]
    path = ctx.path(rel)
    source = path.read_text(encoding="utf-8")
    functions = find_functions(ast.parse(source), ctx.args["function"])
    found = occurrences(source, functions[0], literal) if len(functions) == 1 else []
    if not found:
        raise MacroError(f"{rel} changed while the macro ran: {ctx.args['function']} no longer holds {literal}")
    data = source.encode("utf-8")
    starts = line_offsets(data)
    for node in sorted(found, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        begin, end = node_span(starts, node)
        data = data[:begin] + name.encode("utf-8") + data[end:]
    path.write_text(insert_after_imports(data.decode("utf-8"), f"{name} = {literal}"), encoding="utf-8")
    return f"extracted {literal} in {ctx.args['function']} ({len(found)} place(s)) into the constant {name} of {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel, literal, name = ctx.args["file"], ctx.args["literal"], ctx.args["name"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    source = ctx.path(rel).read_text(encoding="utf-8")
    tree = ast.parse(source)
    assigned = [
        ast.get_source_segment(source, node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]
    ]
    if assigned != [literal]:
        problems.append(f"{rel} does not define {name} = {literal} exactly once at module level")
    functions = find_functions(tree, ctx.args["function"])
    if len(functions) != 1 or occurrences(source, functions[0], literal):
        problems.append(f"{ctx.args['function']} still holds the literal {literal}")
    elif not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(functions[0])):
        problems.append(f"{ctx.args['function']} does not use {name}")
    return problems or test_problems(ctx)


def occurrences(source: str, function: ast.FunctionDef | ast.AsyncFunctionDef, literal: str) -> list[ast.expr]:
    """Literal expressions in the function's defaults and body written exactly as ``literal``.

    The docstring and the insides of f-strings are skipped.
    """
    args = function.args
    stack: list[ast.AST] = [
        *without_docstring(function.body),
        *args.defaults,
        *(d for d in args.kw_defaults if d is not None),
    ]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr):
            continue
        if isinstance(node, ast.expr) and ast.get_source_segment(source, node) == literal and _is_literal(node):
            found.append(node)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def names_in(tree: ast.Module) -> set[str]:
    """Every identifier the module binds or reads, at any depth."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return False
    return True
