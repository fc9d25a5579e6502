"""The micro tools' scope as a run gives it: the workspace and the task's tests, with pytest run as a process
(cold or warm, in the run's sandbox)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.tools import DEFAULT_TEST_TIMEOUT
from ..core.workspace import Workspace
from .pytest_process import PytestRun, run_pytest
from .sandbox import NO_SANDBOX, Sandbox


@dataclass(frozen=True)
class ToolContext:
    """What a run's tools act on (``core.tools.ToolScope``), and the sandbox its macros and tests run in."""

    workspace: Workspace
    tests: tuple[str, ...] = ()
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    sandbox: Sandbox = NO_SANDBOX
    pytest_config: str | None = None
    """The task's config for its pytest runs (``Task.pytest_config``); None: the workspace's own."""

    def run_pytest(self, paths: list[str]) -> PytestRun:
        root, config = self.workspace.root, self.pytest_config
        return run_pytest(root, paths, self.test_timeout, sandbox=self.sandbox, config=config)
