"""Hook specifications: the contract between pytest-granularity and other plugins.

Other pytest plugins (or a ``conftest.py``) implement these to inject faults, register macros
and register agents. The runtime calls the fault hooks at exactly two points of every macro
call, so a fault is deterministic: the same run injects at the same point every time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.hookspec
def pytest_granularity_macro_early(macro: str, args: dict[str, Any], workspace: Path) -> None:
    """Called after a macro's preconditions passed and before its first side effect.

    Raise to inject an ``early`` fault: it is classified as ``executor_exception`` and the
    workspace is untouched.
    """


@pytest.hookspec
def pytest_granularity_macro_late(macro: str, args: dict[str, Any], workspace: Path) -> None:
    """Called after a macro's side effects and its own validation, before it reports success.

    Raise to inject a ``late`` fault: it is classified as ``executor_exception`` and the
    workspace holds all of the macro's changes.
    """


@pytest.hookspec
def pytest_granularity_macro_folders(config: pytest.Config) -> list[Path]:
    """Return folders of macros (each holding ``contract.yaml``, or holding such folders) to register."""
    return []


@pytest.hookspec
def pytest_granularity_agents(config: pytest.Config) -> dict[str, Any]:
    """Return agent factories by name (``factory(AgentSetup) -> agent``, see ``agents``) for ``--granularity-agent``."""
    return {}
