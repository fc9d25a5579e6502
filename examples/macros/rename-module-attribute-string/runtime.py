"""rename_module_attribute_string: replace an exact dotted string literal across .py files."""

from __future__ import annotations

import ast
import io
import tokenize

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems

SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "build", "dist"}


def _python_files(ctx: MacroContext) -> list[str]:
    files = []
    for path in sorted(ctx.root.rglob("*.py")):
        rel = path.relative_to(ctx.root)
        if not any(part in SKIPPED_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            files.append(rel.as_posix())
    return files


def _string_tokens(text: str, value: str) -> list[tokenize.TokenInfo]:
    """Plain string tokens (no f/b prefix) whose value is exactly ``value``."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.STRING or any(c in tok.string.split(tok.string[-1])[0].lower() for c in "fb"):
            continue
        try:
            if ast.literal_eval(tok.string) == value:
                found.append(tok)
        except (ValueError, SyntaxError):
            continue
    return found


def _fstring_mentions(text: str, value: str) -> bool:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.Constant) and value in str(part.value):
                    return True
    return False


def _holders(ctx: MacroContext, value: str) -> tuple[dict[str, str], list[str]]:
    holders, reasons = {}, []
    for rel in _python_files(ctx):
        text = ctx.path(rel).read_text(encoding="utf-8")
        if value not in text:
            continue
        try:
            if _fstring_mentions(text, value):
                reasons.append(f"{rel} spells {value} in an f-string")
            if _string_tokens(text, value):
                holders[rel] = text
        except (SyntaxError, tokenize.TokenError) as exc:
            reasons.append(f"{rel} does not parse ({exc})")
    return holders, reasons


def preconditions(ctx: MacroContext) -> list[str]:
    old, new = ctx.args["old"], ctx.args["new"]
    if old == new:
        return ["new is the same as old"]
    holders, reasons = _holders(ctx, old)
    if not holders:
        reasons.append(f"no .py file holds the string literal {old!r}")
    return reasons


def _replace(text: str, tokens: list[tokenize.TokenInfo], new: str) -> str:
    lines = text.splitlines(keepends=True)
    for tok in reversed(tokens):
        (row, col), (end_row, end_col) = tok.start, tok.end
        if row != end_row:
            raise MacroError(f"a multi-line string literal at line {row} holds the path")
        quote = tok.string[-3:] if tok.string.endswith(('"""', "'''")) else tok.string[-1]
        prefix = tok.string[: tok.string.index(quote)]
        literal = f"{prefix}{quote}{new}{quote}"
        lines[row - 1] = lines[row - 1][:col] + literal + lines[row - 1][end_col:]
    return "".join(lines)


def run(ctx: MacroContext) -> str:
    old, new = ctx.args["old"], ctx.args["new"]
    holders, _ = _holders(ctx, old)
    count = 0
    for rel, text in holders.items():
        tokens = _string_tokens(text, old)
        ctx.path(rel).write_text(_replace(text, tokens, new), encoding="utf-8")
        count += len(tokens)
    return f"replaced {count} literal(s) {old!r} with {new!r} in {len(holders)} file(s): {', '.join(holders)}"


def validate(ctx: MacroContext) -> list[str]:
    old = ctx.args["old"]
    files = _python_files(ctx)
    problems = syntax_problems(ctx, files)
    if problems:
        return problems
    left = [
        rel for rel in files if old in (text := ctx.path(rel).read_text(encoding="utf-8")) and _string_tokens(text, old)
    ]
    if left:
        return [f"the literal {old!r} is still in {', '.join(left)}"]
    return test_problems(ctx)
