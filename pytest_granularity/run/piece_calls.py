"""The reference agent's macro calls for part of its change: every piece the macros make, made in turn.

Each macro whose contract has ``pieces`` lists its own calls (``pieces.find``). Two macros may make the same
piece (two shapes mined from one run of added items), and one macro's call may change what another's needs.
So the calls are made in turn in a scratch folder, macro by macro (by name), each macro's pieces found on
the files as the calls before it left them, and a call is kept only when it fits when its turn comes: a
sequence whose every call the executor will accept, as an agent that knows the change and the macros would
call them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.workspace import Workspace, read_tree, write_tree
from ..macros import Macro, MacroContext
from ..macros.context import MacroError

PieceCall = tuple[str, dict[str, Any]]


def piece_calls(macros: Iterable[Macro], initial: Mapping[str, bytes], target: Mapping[str, bytes]) -> list[PieceCall]:
    """The calls that make pieces of the change from ``initial`` to ``target``, each fitting once those before it
    are made."""
    finders = sorted((m for m in macros if m.pieces is not None), key=lambda m: m.name)
    changed = sorted(p for p in initial.keys() | target.keys() if initial.get(p) != target.get(p))
    if not finders or not changed:
        return []
    wanted = {p: target[p] for p in changed if p in target}
    calls: list[PieceCall] = []
    with tempfile.TemporaryDirectory(prefix="granularity-pieces-") as scratch:
        root = Path(scratch)
        write_tree(root, {p: initial[p] for p in changed if p in initial})
        workspace = Workspace(root)
        for macro in finders:
            assert macro.pieces is not None
            for args in macro.pieces(read_tree(root), wanted):
                if _made(macro, MacroContext(workspace, dict(args))):
                    calls.append((macro.name, dict(args)))
    return calls


def _made(macro: Macro, ctx: MacroContext) -> bool:
    if macro.preconditions(ctx):
        return False
    try:
        macro.run(ctx)
    except MacroError:
        return False
    return True
