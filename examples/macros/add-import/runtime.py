"""add_import: add one import statement to a module, after its top-level imports."""

from __future__ import annotations

import ast

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import bound_name, is_docstring, last_line, read_python

Import = ast.Import | ast.ImportFrom


def _statement(ctx: MacroContext) -> tuple[Import | None, str | None]:
    try:
        tree = ast.parse(ctx.args["statement"].strip())
    except SyntaxError as exc:
        return None, f"the statement does not parse ({exc.msg})"
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
        return None, "the statement is not a single import statement"
    node = tree.body[0]
    if any(alias.name == "*" for alias in node.names):
        return None, "star imports are not supported"
    return node, None


def _key(node: Import, alias: ast.alias) -> tuple[object, ...]:
    """What one alias imports: equal keys import the same thing under the same name."""
    if isinstance(node, ast.ImportFrom):
        return ("from", node.module, node.level, alias.name, alias.asname)
    return ("import", alias.name, alias.asname)


def _bindings(tree: ast.Module) -> dict[str, list[tuple[int, ast.AST]]]:
    """Names bound by the module's top-level statements, with the line and node binding them."""
    found: dict[str, list[tuple[int, ast.AST]]] = {}
    for stmt in tree.body:
        names: list[tuple[str, ast.AST]] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [(stmt.name, stmt)]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = [(bound_name(a), a) for a in stmt.names]
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [(n.id, n) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        for name, node in names:
            found.setdefault(name, []).append((stmt.lineno, node))
    return found


def _insertion(tree: ast.Module, statement: Import, text: str) -> tuple[int, bool]:
    """The line after which the import goes, and whether it needs a blank line before it."""
    body = tree.body
    i, after = 0, 0
    if body and is_docstring(body[0]):
        i, after = 1, last_line(body[0])
    future = isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
    last = None
    while i < len(body) and isinstance(node := body[i], (ast.Import, ast.ImportFrom)):
        if future and not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            break
        last, i = node, i + 1
    if last is not None:
        return last_line(last), False
    if after:
        return after, True
    if body:
        first = body[0]
        return min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))]) - 1, False
    return len(text.splitlines()), bool(text.strip())


def preconditions(ctx: MacroContext) -> list[str]:
    statement, problem = _statement(ctx)
    if statement is None:
        return [str(problem)]
    source, reasons = read_python(ctx, ctx.args["file"])
    if source is None:
        return reasons
    text, tree = source.text, source.tree
    existing = {_key(s, a) for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom)) for a in s.names}
    bindings = _bindings(tree)
    for alias in statement.names:
        if _key(statement, alias) in existing:
            reasons.append(f"{ctx.args['file']} already imports {alias.name}")
            continue
        for line, node in bindings.get(bound_name(alias), []):
            same_package = (
                isinstance(statement, ast.Import)
                and isinstance(node, ast.alias)
                and not node.asname
                and not alias.asname
                and node.name.split(".")[0] == alias.name.split(".")[0]
            )
            if not same_package:
                reasons.append(f"{bound_name(alias)} is already bound at line {line} of {ctx.args['file']}")
    line, _ = _insertion(tree, statement, text)
    if any(s.lineno == line and s.col_offset > 0 for s in tree.body):
        reasons.append(f"line {line} of {ctx.args['file']} holds several statements; cannot insert after it")
    return list(dict.fromkeys(reasons))


def run(ctx: MacroContext) -> str:
    statement, problem = _statement(ctx)
    source, reasons = read_python(ctx, ctx.args["file"])
    if statement is None or source is None:
        raise MacroError(problem or "; ".join(reasons))
    text = source.text
    line, blank = _insertion(source.tree, statement, text)
    lines = text.splitlines(keepends=True)
    if line and not lines[line - 1].endswith("\n"):
        lines[line - 1] += "\n"
    lines.insert(line, ("\n" if blank else "") + ctx.args["statement"].strip() + "\n")
    ctx.path(ctx.args["file"]).write_text("".join(lines), encoding="utf-8")
    return f"added '{ctx.args['statement'].strip()}' to {ctx.args['file']} at line {line + 1 + blank}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    statement, _ = _statement(ctx)
    tree = ast.parse(ctx.path(rel).read_text(encoding="utf-8"))
    if statement is None or not any(ast.dump(s) == ast.dump(statement) for s in tree.body):
        return [f"{rel} does not hold the import at top level"]
    return test_problems(ctx)
