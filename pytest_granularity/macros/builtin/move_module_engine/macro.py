"""The move macro's five functions: the builtin ``move_module`` binds them, and so does a mined module move
(``evolution/moves.py``), whose sources showed that moves recur in a project's history."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_granularity.core.workspace import PathEscape
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.context import MacroContext
from pytest_granularity.macros.derivation.moves import moves

from . import blockers, references, rewrite


def _move(ctx: MacroContext) -> rewrite.Move:
    source = ctx.args["source"]
    return rewrite.plan(ctx.root, source, ctx.args["destination"], ctx.path(source).is_dir())


def preconditions(ctx: MacroContext) -> list[str]:
    try:
        source, destination = ctx.path(ctx.args["source"]), ctx.path(ctx.args["destination"])
    except PathEscape as exc:
        return [str(exc)]
    move = rewrite.plan(ctx.root, ctx.args["source"], ctx.args["destination"], source.is_dir())
    if source.is_dir() and not (source / "__init__.py").is_file():
        return [f"{move.old_path} is a folder but not a package (no __init__.py)"]
    if not source.is_dir() and not (source.is_file() and source.suffix == ".py"):
        return [f"{move.old_path} is not a Python module or package"]
    if destination.exists():
        return [f"the destination {move.new_path} already exists"]
    if not source.is_dir() and destination.suffix != ".py":
        return [f"the destination {move.new_path} of a module must end in .py"]
    if move.new == move.old or move.new.startswith(move.old + "."):
        return [f"cannot move {move.old} into itself"]
    return blockers.blockers(ctx.root, move)


def run(ctx: MacroContext) -> str:
    move = _move(ctx)
    mirrors = blockers.mirrors(ctx.root, move)
    text_plan = references.plan(ctx.root, move, rewrite.new_packages(ctx.root, move), mirrors)
    rewritten = rewrite.apply(ctx.root, move, mirrors)
    references.apply(ctx.root, text_plan)
    summary = (
        f"moved {move.old} to {move.new}; "
        f"rewrote references in {len(rewritten)} file(s): {', '.join(rewritten) or 'none'}"
    )
    if text_plan.edits:
        summary += f"; edited {len(text_plan.edits)} non-Python reference(s): " + ", ".join(
            edit.describe() for edit in text_plan.edits
        )
    return summary


def validate(ctx: MacroContext) -> list[str]:
    problems = syntax_problems(ctx, rewrite.python_files(ctx.root))
    if ctx.path(ctx.args["source"]).exists():
        problems.append(f"{ctx.args['source']} still exists after the move")
    return problems or test_problems(ctx)


def derive_arguments(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, str]]:
    """Moves the prompt pins down, however worded: an existing module or package it names, to a new place it names."""
    return moves(prompt, files)
