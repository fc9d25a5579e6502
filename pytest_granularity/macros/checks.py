"""Validation steps the built-in macros share: does the Python still parse, do the tests pass."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .context import MacroContext

TEST_TAIL_LINES = 15


def syntax_problems(ctx: MacroContext, paths: Iterable[str]) -> list[str]:
    problems = []
    for rel in paths:
        path = ctx.path(rel)
        if not path.is_file():
            continue
        try:
            ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        except SyntaxError as exc:
            problems.append(f"{rel} no longer parses (line {exc.lineno}: {exc.msg})")
    return problems


NO_TESTS_COLLECTED = 5


def test_problems(ctx: MacroContext, paths: list[str] | None = None) -> list[str]:
    """The failures of ``paths`` (default: the call's or the task's tests, else the whole suite); a project
    with no tests to run has nothing to fail."""
    run = ctx.run_tests(paths)
    if run.passed or run.exit_code == NO_TESTS_COLLECTED:
        return []
    status = "timed out" if run.timed_out else f"exit code {run.exit_code}"
    return [f"tests failed ({status}):\n{run.tail(TEST_TAIL_LINES)}"]
