"""A module moved: one rewrite at many sites, the module's dotted name in every import and string naming it.

A source whose Python files only lost a module (or a package's files) and gained it under a new path is a
move; the references its other changes rewrote are the move's sites. They differ in every import form a
project uses, so no pattern of holes spans them: a refactoring tool does this better, and the miner
carries a recognised move out with the move engine (``macros/builtin/move_module_engine``, the one the
builtin ``move_module`` runs: preconditions that refuse what it cannot prove safe, every reference
rewritten with libcst, the whole suite as validation). What is mined is the evidence: a project whose
history moves modules gets a move macro, proved like every shape by reproducing each source task
(``miner``), and one whose history does not, gets none.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..macros.builtin.move_module_engine.macro import derive_arguments, preconditions, run, validate

__all__ = ["Moved", "derive_arguments", "moved", "pieces", "preconditions", "run", "validate"]

ALIKE = 0.5
"""The least share of lines a moved module's new file keeps (its own imports may be rewritten)."""


@dataclass(frozen=True)
class Moved:
    """A move's call: the module's path (a ``.py`` file or a package folder) before and after."""

    source: str
    destination: str

    def call(self) -> dict[str, Any]:
        return {"source": self.source, "destination": self.destination}


def moved(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> Moved | None:
    """The move the change from ``before`` to ``after`` makes, when the Python files it removes and adds are
    one module's file under a new path (with the ``__init__.py`` of new packages it goes into), or one
    package's files under a new folder; None otherwise."""
    gone = sorted(p for p in before.keys() - after.keys() if p.endswith(".py"))
    new = sorted(p for p in after.keys() - before.keys() if p.endswith(".py"))
    modules = [p for p in new if not p.endswith("/__init__.py")]
    if len(gone) == 1 and len(modules) == 1 and all(_holds(p, modules[0]) for p in new if p not in modules):
        return Moved(gone[0], modules[0]) if _alike(before[gone[0]], after[modules[0]]) else None
    old, fresh = _package(gone), _package(new)
    if old is None or fresh is None or old == fresh:
        return None
    return Moved(old, fresh) if _inside(gone, old) == _inside(new, fresh) else None


def pieces(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[dict[str, Any]]:
    """The move call that makes part of the change from ``before`` to ``after``, if it moves a module."""
    found = moved(before, after)
    return [found.call()] if found is not None else []


def _alike(old: bytes, new: bytes) -> bool:
    a, b = old.decode("utf-8", "replace").splitlines(), new.decode("utf-8", "replace").splitlines()
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= ALIKE


def _holds(init: str, module: str) -> bool:
    """Whether ``init`` is the ``__init__.py`` of a package ``module`` lies in."""
    return module.startswith(init.removesuffix("__init__.py"))


def _package(paths: list[str]) -> str | None:
    """The one package folder every path lies in (the outermost with an ``__init__.py`` among them)."""
    inits = sorted((p.rsplit("/", 1)[0] for p in paths if p.endswith("/__init__.py")), key=len)
    if not inits:
        return None
    top = inits[0]
    return top if all(p.startswith(top + "/") for p in paths) else None


def _inside(paths: list[str], folder: str) -> set[str]:
    return {p[len(folder) + 1 :] for p in paths}
