"""sort_imports_in_module: sort the top-of-module import block of one file (stdlib only)."""

from __future__ import annotations

import ast
import io

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import last_line, read_python, without_docstring

Imports = (ast.Import, ast.ImportFrom)


def _block(tree: ast.Module) -> list[ast.stmt]:
    """The top-of-module import statements after the docstring and __future__ imports."""
    body = list(without_docstring(tree.body))
    while body and isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__":
        body.pop(0)
    block: list[ast.stmt] = []
    for stmt in body:
        if not isinstance(stmt, Imports):
            break
        block.append(stmt)
    return block


def _key(stmt: ast.stmt, line: str) -> tuple[str, int, str]:
    if isinstance(stmt, ast.Import):
        return (stmt.names[0].name.lower(), 0, line.lower())
    assert isinstance(stmt, ast.ImportFrom)
    return ("." * stmt.level + (stmt.module or "")).lower(), 1, line.lower()


def _analyse(text: str) -> tuple[list[str], list[ast.stmt], list[str]]:
    """The file's lines, its import block, and why the block cannot be sorted (if it cannot)."""
    lines = io.StringIO(text, newline="").readlines()
    block = _block(ast.parse(text))
    if not block:
        return lines, block, ["the module has no import block at the top"]
    reasons = []
    if any(s.lineno != s.end_lineno for s in block):
        reasons.append("the import block has a statement spanning several lines")
    if len({s.lineno for s in block}) != len(block):
        reasons.append("the import block has several statements on one line")
    used = {s.lineno for s in block}
    for number in range(block[0].lineno, last_line(block[-1]) + 1):
        line = lines[number - 1]
        if number not in used and line.strip():
            reasons.append(f"line {number} inside the import block is not an import (comment?)")
        elif number in used and "#" in line:
            reasons.append(f"line {number} of the import block has a comment")
    return lines, block, reasons


def _ordered(lines: list[str], block: list[ast.stmt]) -> list[str]:
    entries = [(s, lines[s.lineno - 1]) for s in block]
    return [
        line if line.endswith("\n") else line + "\n"
        for _, line in sorted(entries, key=lambda e: _key(e[0], e[1].strip()))
    ]


def _is_sorted(lines: list[str], block: list[ast.stmt]) -> bool:
    return [lines[s.lineno - 1].rstrip("\r\n") for s in block] == [
        line.rstrip("\r\n") for line in _ordered(lines, block)
    ]


def preconditions(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    source, unreadable = read_python(ctx, rel)
    if source is None:
        return unreadable
    lines, block, reasons = _analyse(source.text)
    if not reasons and _is_sorted(lines, block):
        reasons.append(f"the imports of {rel} are already sorted")
    return reasons


def run(ctx: MacroContext) -> str:
    rel = ctx.args["file"]
    path = ctx.path(rel)
    lines, block, reasons = _analyse(path.read_text(encoding="utf-8"))
    if reasons:
        raise MacroError("; ".join(reasons))
    start, end = block[0].lineno - 1, block[-1].end_lineno
    lines[start:end] = _ordered(lines, block)
    path.write_text("".join(lines), encoding="utf-8")
    return f"sorted {len(block)} import statement(s) in {rel}"


def validate(ctx: MacroContext) -> list[str]:
    rel = ctx.args["file"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    lines, block, _ = _analyse(ctx.path(rel).read_text(encoding="utf-8"))
    if not block or not _is_sorted(lines, block):
        return [f"the import block of {rel} is not sorted"]
    return test_problems(ctx)
