"""replace_and_verify: replace an exact text in the named files, then re-verify."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.derivation.replacements import replacements
from pytest_granularity.macros.kit import existing_file


def preconditions(ctx: MacroContext) -> list[str]:
    old = ctx.args["old"]
    reasons = []
    for rel in ctx.args["files"]:
        path, missing = existing_file(ctx, rel)
        if path is None:
            reasons += missing
            continue
        count = path.read_text(encoding="utf-8").count(old)
        if count != 1:
            reasons.append(f"the text to replace occurs {count} times in {rel} (it must occur exactly once)")
    return reasons


def run(ctx: MacroContext) -> str:
    old, new = ctx.args["old"], ctx.args["new"]
    for rel in ctx.args["files"]:
        path = ctx.path(rel)
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise MacroError(f"{rel} changed while the replacement was under way")
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return f"replaced the text in {len(ctx.args['files'])} file(s)"


def validate(ctx: MacroContext) -> list[str]:
    return syntax_problems(ctx, [f for f in ctx.args["files"] if f.endswith(".py")]) or test_problems(ctx)


def derive_arguments(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, object]]:
    """Replacements the prompt pins down: a value it changes from one to another, in the files it names."""
    return replacements(prompt, files)
