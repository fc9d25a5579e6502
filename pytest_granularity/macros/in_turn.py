"""Calls made in turn in a scratch folder: which of them fit, and the files they leave.

The miner shows a mined macro's examples from the files its other calls leave, undoes a piece of a larger
commit, and the reference agent's piece calls must each fit once those before it are made. All of them make
calls with a macro's own preconditions and run, on a copy of the files, never on a workspace of a run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..core.workspace import Workspace, read_tree, write_tree
from .context import MacroContext, MacroError


class Makes(Protocol):
    """What a call needs of a macro: a loaded ``Macro`` or a mined engine."""

    def preconditions(self, ctx: MacroContext) -> list[str]: ...

    def run(self, ctx: MacroContext) -> str: ...


def made_in_turn(
    macro: Makes, files: Mapping[str, bytes], calls: Sequence[dict[str, Any]]
) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """``files`` after the calls, made in turn in a scratch folder, and the calls made: one that does not fit
    (its preconditions refuse it, or its run does) is left out."""
    made = []
    with tempfile.TemporaryDirectory(prefix="granularity-calls-") as scratch:
        root = Path(scratch)
        write_tree(root, files)
        for call in calls:
            ctx = MacroContext(Workspace(root), dict(call))
            if macro.preconditions(ctx):
                continue
            try:
                macro.run(ctx)
            except MacroError:
                continue
            made.append(call)
        return read_tree(root), made
