"""The project's own tests that exercise what a call rewrote: test files that import a rewritten module.

A caller may narrow a macro's validation to a few tests (``tests``); tests it left out may be the very ones
that exercise the rewritten code, and a validation that skips them passes a
rewrite the verifier then rejects. So a mined macro's validation adds every test file of the workspace
that imports a rewritten module directly (a static scan: ``import pkg.mod``, ``from pkg.mod import x``,
``from pkg import mod``). Without a narrowing the whole suite runs, which holds them already.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core.modnames import import_name, imported_names
from ..core.test_layout import read_layout
from ..macros.context import MacroContext


def covering_tests(root: Path, files: Mapping[str, bytes], rewritten: Iterable[str]) -> list[str]:
    """The test files among ``files`` (the workspace under ``root``) that import a module of ``rewritten``."""
    modules = {import_name(root, rel) for rel in rewritten if rel.endswith(".py")}
    layout = read_layout(files)
    return sorted(
        path for path, data in files.items() if layout.is_test_file(path) and imported_names(path, data) & modules
    )


def validation_tests(ctx: MacroContext) -> list[str]:
    """The tests a call's validation runs: none named means the whole suite (an empty list); a task's own
    list as it is (a mined task lists what passed before the change: a test file it leaves out fails
    there already); the call's own list with the covering tests it left out."""
    named = list(ctx.args.get("tests") or ())
    if not named:
        return list(ctx.tests)
    covering = covering_tests(ctx.root, ctx.workspace.files(), ctx.args["files"])
    return [*named, *(t for t in covering if t not in named)]
