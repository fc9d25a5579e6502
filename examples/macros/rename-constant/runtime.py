"""rename_constant: rename a module-level constant within one file."""

from __future__ import annotations

import re

from pytest_granularity import MacroContext
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import existing_file


def _defines(text: str, name: str) -> bool:
    return re.search(rf"^{name}\s*(:[^=]*)?=", text, re.M) is not None


def preconditions(ctx: MacroContext) -> list[str]:
    path, reasons = existing_file(ctx, ctx.args["file"])
    if path is None:
        return reasons
    text = path.read_text()
    if not _defines(text, ctx.args["old"]):
        reasons.append(f"{ctx.args['file']} does not define {ctx.args['old']}")
    if _defines(text, ctx.args["new"]):
        reasons.append(f"{ctx.args['file']} already defines {ctx.args['new']}")
    return reasons


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    path.write_text(re.sub(rf"\b{ctx.args['old']}\b", ctx.args["new"], path.read_text()))
    return f"renamed {ctx.args['old']} to {ctx.args['new']} in {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    text = ctx.path(ctx.args["file"]).read_text()
    problems = syntax_problems(ctx, [ctx.args["file"]])
    if ctx.args["old"] in text or not _defines(text, ctx.args["new"]):
        problems.append(f"{ctx.args['file']} still mentions {ctx.args['old']} or lacks {ctx.args['new']}")
    return problems or test_problems(ctx)
