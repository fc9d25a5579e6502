"""What a macro's functions are given, and the one exception a macro raises to say it cannot finish.

Its own module so that both sides of a macro call (the runtime in the plugin's process, the child a
sandboxed call starts) can use it without importing each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import GranularityError
from ..core.tools import check_test_paths
from ..core.workspace import PathEscape, Workspace
from ..process.pytest_process import PytestRun, run_pytest
from ..process.sandbox import NO_SANDBOX, Sandbox


class MacroError(GranularityError):
    """Raised by a macro that finds, while acting, that it cannot finish the job."""


@dataclass(frozen=True)
class MacroContext:
    """What a macro's functions are given: the workspace, the call's arguments, a test runner,
    the macros it declared in ``depends_on``, and the sandbox its work and tests run in."""

    workspace: Workspace
    args: dict[str, Any]
    tests: tuple[str, ...] = ()
    test_timeout: float = 120.0
    dependencies: dict[str, Any] = field(default_factory=dict)
    sandbox: Sandbox = NO_SANDBOX
    tests_runner: Callable[[list[str]], PytestRun] | None = field(default=None, compare=False)
    """In a macro's process: runs the tests in the plugin's process instead (see ``answer_with_tests``)."""
    pytest_config: str | None = None
    """The task's config for its pytest runs (``Task.pytest_config``); None: the workspace's own."""

    def call_dependency(self, name: str, args: dict[str, Any]) -> str:
        """Run a declared dependency's preconditions and work in this workspace; its refusal is a MacroError."""
        macro = self.dependencies.get(name)
        if macro is None:
            raise MacroError(f"'{name}' is not among this macro's declared dependencies")
        context = dataclasses.replace(self, args=dict(args), dependencies={})
        reasons = list(macro.preconditions(context))
        if reasons:
            raise MacroError(f"dependency {name} does not fit: {'; '.join(reasons)}")
        return str(macro.run(context))

    @property
    def root(self) -> Path:
        return self.workspace.root

    def path(self, rel: str) -> Path:
        return self.workspace.resolve(rel)

    def run_tests(self, paths: list[str] | None = None) -> PytestRun:
        chosen = list(paths or self.args.get("tests") or self.tests)
        try:
            check_test_paths(self.workspace, chosen)
        except PathEscape as exc:
            raise MacroError(str(exc)) from None
        if self.tests_runner is not None:
            return self.tests_runner(chosen)
        return run_pytest(self.root, chosen, self.test_timeout, sandbox=self.sandbox, config=self.pytest_config)


Parts = dict[str, Callable[[MacroContext], Any]]
"""A call's macro code by part (``preconditions``, ``run``, ``validate``), as one macro process runs them."""
