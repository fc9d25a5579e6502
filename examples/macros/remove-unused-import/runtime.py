"""remove_unused_import: remove the top-level import of a name the module does not use."""

from __future__ import annotations

import ast
import copy
import io
import re
import tokenize

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import bound_name, last_line, read_python

Import = ast.Import | ast.ImportFrom


def _importers(tree: ast.Module, name: str) -> list[Import]:
    return [
        s
        for s in tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom)) and any(bound_name(a) == name for a in s.names)
    ]


def _uses(text: str, statement: Import, name: str) -> list[int]:
    """Lines outside the import where the name appears as an identifier or inside a string."""
    mention = re.compile(rf"\b{re.escape(name)}\b")
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if statement.lineno <= token.start[0] <= last_line(statement):
            continue
        if (token.type == tokenize.NAME and token.string == name) or (
            token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)) and mention.search(token.string)
        ):
            lines.append(token.start[0])
    return lines


def _target(ctx: MacroContext) -> tuple[str, Import | None, list[str]]:
    rel, name = ctx.args["file"], ctx.args["name"]
    source, reasons = read_python(ctx, rel)
    if source is None:
        return "", None, reasons
    text = source.text
    found = _importers(source.tree, name)
    if len(found) != 1:
        return text, None, [f"{len(found)} top-level imports in {rel} bind {name} (there must be exactly one)"]
    statement = found[0]
    lines = text.splitlines()
    before = lines[statement.lineno - 1].encode("utf-8")[: statement.col_offset]
    after = lines[last_line(statement) - 1].encode("utf-8")[statement.end_col_offset :].strip()
    if before.strip() or (after and not after.startswith(b"#")):
        reasons.append(f"the import of {name} (line {statement.lineno}) shares its line with another statement")
    used = _uses(text, statement, name)
    if used:
        reasons.append(f"{rel} uses {name} (line {', '.join(map(str, sorted(set(used))))})")
    return text, statement, reasons


def preconditions(ctx: MacroContext) -> list[str]:
    return _target(ctx)[2]


def run(ctx: MacroContext) -> str:
    text, statement, reasons = _target(ctx)
    if statement is None or reasons:
        raise MacroError("; ".join(reasons) or "the import is no longer there")
    name = ctx.args["name"]
    lines = text.splitlines(keepends=True)
    kept = [a for a in statement.names if bound_name(a) != name]
    replacement = []
    if kept:
        shorter = copy.copy(statement)
        shorter.names = kept
        newline = "\r\n" if lines[last_line(statement) - 1].endswith("\r\n") else "\n"
        replacement = [ast.unparse(shorter) + newline]
    lines[statement.lineno - 1 : statement.end_lineno] = replacement
    ctx.path(ctx.args["file"]).write_text("".join(lines), encoding="utf-8")
    what = "the import statement" if not kept else f"{name} from its import statement"
    return f"removed {what} (line {statement.lineno}) from {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    rel, name = ctx.args["file"], ctx.args["name"]
    problems = syntax_problems(ctx, [rel])
    if problems:
        return problems
    if _importers(ast.parse(ctx.path(rel).read_text(encoding="utf-8")), name):
        return [f"{rel} still imports {name}"]
    return test_problems(ctx)
