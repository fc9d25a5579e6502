"""The reference agent's macro calls for part of its change: every piece the macros make, made in turn.

Each macro whose contract has ``pieces`` lists its own calls (``pieces.find``). Two macros may make the same
piece (two shapes mined from one run of added items), and one macro's call may change what another's needs.
So the calls are made in turn in a scratch folder (``macros/in_turn.py``), macro by macro (by name), each
macro's pieces found on the files as the calls before it left them, and a call is kept only when it fits
when its turn comes: a sequence whose every call the executor will accept, as an agent that knows the
change and the macros would call them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..macros import Macro
from ..macros.in_turn import made_in_turn

PieceCall = tuple[str, dict[str, Any]]


def piece_calls(macros: Iterable[Macro], initial: Mapping[str, bytes], target: Mapping[str, bytes]) -> list[PieceCall]:
    """The calls that make pieces of the change from ``initial`` to ``target``, each fitting once those before it
    are made."""
    finders = sorted((m for m in macros if m.pieces is not None), key=lambda m: m.name)
    changed = sorted(p for p in initial.keys() | target.keys() if initial.get(p) != target.get(p))
    if not finders or not changed:
        return []
    wanted = {p: target[p] for p in changed if p in target}
    files = {p: initial[p] for p in changed if p in initial}
    calls: list[PieceCall] = []
    for macro in finders:
        assert macro.pieces is not None
        files, made = made_in_turn(macro, files, macro.pieces(files, wanted))
        calls += [(macro.name, dict(args)) for args in made]
    return calls
