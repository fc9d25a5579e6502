"""Building small workspaces and calling macros on them, for the macro tests."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroContext, MacroRegistry, invoke
from pytest_granularity.macros.runtime import FaultPoint, no_faults

REGISTRY = MacroRegistry.load()


def workspace(root: Path, files: dict[str, str]) -> Workspace:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return Workspace(root)


def call(ws: Workspace, name: str, fault: FaultPoint = no_faults, **args: Any):
    macro = REGISTRY.get(name)
    assert macro is not None
    return invoke(macro, MacroContext(ws, args, test_timeout=60), fault)
