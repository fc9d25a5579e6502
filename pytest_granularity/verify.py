"""The task's verifier: the only judge of success.

The hidden verifier tests are copied into the final workspace only now, run by pytest in a fresh
subprocess, and removed again. Nothing the agent or a macro said counts; exit code 0 does.
An agent can break the code under test (exit 1, or 2 for a collection error): that is a
failed run. A verifier that hangs, finds no tests or cannot start is an infrastructure error,
kept apart from agent failures.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from .pytest_process import run_pytest
from .tasks import Task
from .workspace import Workspace, overlay

VERIFIER_DIR = "_granularity_verifier"
AGENT_FAILURE_CODES = (1, 2)


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    output: str
    infrastructure_error: str | None = None


def verify(task: Task, workspace: Workspace) -> Verdict:
    folder = workspace.root / VERIFIER_DIR
    shutil.rmtree(folder, ignore_errors=True)
    overlay(folder, task.verifier_tests)
    try:
        run = run_pytest(
            workspace.root,
            ["--noconftest", "--import-mode=importlib", "-o", "addopts=", "-rfE", VERIFIER_DIR],
            task.verifier_timeout,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if run.timed_out:
        return Verdict(False, run.tail(), f"verifier timed out after {task.verifier_timeout:g}s")
    if run.exit_code == 0 or run.exit_code in AGENT_FAILURE_CODES:
        return Verdict(run.exit_code == 0, run.tail())
    return Verdict(False, run.tail(), f"verifier could not run (pytest exit code {run.exit_code})")
