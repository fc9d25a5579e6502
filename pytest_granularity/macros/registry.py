"""The macro registry: built-in macros, a user's folder, and macros other plugins register.

What keeps a large library usable:

- **names** are unique across all sources (a clash names both folders);
- **dependencies** (``depends_on``) are resolved in topological order at registration; a
  missing dependency or a cycle is an error naming the macros;
- **health**: a macro whose ``needs`` (a module, an executable, a file) are missing is kept, as
  disabled with the reason, and re-checked every time the registry is asked, so it comes back
  when the need appears, without a restart;
- **circuit breaker**: after ``breaker`` consecutive malfunctions of one macro in a process
  (an exception of its own or a partial side effect; not a refusal, not an injected fault) it is
  disabled for the rest of the session; for a macro on probation (a mined one) a failed validation
  counts as a malfunction;
- **retrieval**: with more than ``k`` available macros, only ``k`` are offered to the model: the
  pinned ones (``pinned: true``, general-purpose macros), then the best of the rest for the
  task, ranked with BM25 over name, description, trigger hint and keywords.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import Any

from ..core.defaults import DEFAULT_BREAKER, DEFAULT_TOP_K
from ..core.failures import FailureClass
from ..core.schemas import DefinitionError
from .contract import BUILTIN_FOLDER, CONTRACT_FILE, Macro, load_macro

MALFUNCTIONS = (FailureClass.EXECUTOR_EXCEPTION, FailureClass.PARTIAL_SIDE_EFFECT)
_WORD = re.compile(r"[a-z0-9]+")


def macro_folders(root: Path) -> list[Path]:
    """Every folder directly under ``root`` (or ``root`` itself) that holds a contract."""
    root = Path(root)
    if (root / CONTRACT_FILE).is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / CONTRACT_FILE).is_file()) if root.is_dir() else []


def unmet_need(macro: Macro) -> str | None:
    """The first declared need that is missing now, or None."""
    for need in macro.contract.get("needs", []):
        if "module" in need and importlib.util.find_spec(need["module"]) is None:
            return f"needs the Python module '{need['module']}'"
        if "executable" in need and shutil.which(need["executable"]) is None:
            return f"needs the executable '{need['executable']}' on PATH"
        if "file" in need and not (macro.folder / need["file"]).exists():
            return f"needs the file {macro.folder / need['file']}"
    return None


class MacroRegistry:
    """The macros a session may offer, by name, and their health over the session.

    One object answers what a run may call (``offer``: retrieval by BM25, less the macros the circuit breaker
    disabled) and records how each call went (``record``), so a macro that keeps malfunctioning stops costing
    every later run a failed call.
    """

    def __init__(self, macros: Iterable[Macro], breaker: int = DEFAULT_BREAKER) -> None:
        by_name: dict[str, Macro] = {}
        for macro in macros:
            other = by_name.get(macro.name)
            if other is not None:
                raise DefinitionError(
                    macro.folder / CONTRACT_FILE, "name", f"'{macro.name}' is already defined by {other.folder}"
                )
            by_name[macro.name] = macro
        self._macros = {name: by_name[name] for name in _dependency_order(by_name)}
        self.breaker = breaker
        self._failures: Counter[str] = Counter()
        self._tripped: dict[str, str] = {}

    @classmethod
    def load(cls, roots: Iterable[Path] = (), builtin: bool = True, breaker: int = DEFAULT_BREAKER) -> MacroRegistry:
        folders = macro_folders(BUILTIN_FOLDER) if builtin else []
        for root in roots:
            if not Path(root).is_dir():
                raise DefinitionError(Path(root), "<folder>", "macro folder does not exist")
            folders.extend(macro_folders(root))
        return cls((load_macro(f) for f in folders), breaker)

    def __contains__(self, name: object) -> bool:
        return name in self._macros

    def __iter__(self) -> Iterator[Macro]:
        return iter(self._macros.values())

    def __len__(self) -> int:
        return len(self._macros)

    def get(self, name: str) -> Macro | None:
        return self._macros.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._macros)

    def unavailable(self, name: str) -> str | None:
        """Why ``name`` cannot be called now (re-checking its needs), or None when it can."""
        if name in self._tripped:
            return self._tripped[name]
        macro = self._macros.get(name)
        return unmet_need(macro) if macro is not None else "no such macro"

    def available(self) -> list[Macro]:
        return [m for m in self._macros.values() if self.unavailable(m.name) is None]

    def record(self, name: str, failure_class: str | None, injected: bool = False) -> None:
        """Count a call's outcome for the circuit breaker: a malfunction, and for a macro on probation (``probation:
        true``, as mined macros are written) a failed validation too: a mined macro that stops fitting the work is
        retired like one that crashes."""
        macro = self._macros.get(name)
        probation = macro is not None and macro.contract.get("probation", False)
        counted = (*MALFUNCTIONS, FailureClass.VALIDATION_FAILURE) if probation else MALFUNCTIONS
        if failure_class in counted and not injected:
            self._failures[name] += 1
            if self.breaker and self._failures[name] >= self.breaker and name not in self._tripped:
                self._tripped[name] = f"circuit breaker open after {self._failures[name]} consecutive failures"
        elif failure_class is None:
            self._failures[name] = 0

    def offer(self, query: str, k: int = DEFAULT_TOP_K, suggesting: Collection[str] = ()) -> list[Macro]:
        """The available macros to put in the tool list: all of them, or the top ``k`` for ``query``. Macros
        named in ``suggesting`` (those whose derivation proposed a call its preconditions accept) rank ahead
        of the rest: in a library of many mined macros, words alone put a macro that fits the files behind
        others that only share the request's vocabulary."""
        available = self.available()
        if not k or len(available) <= k:
            return available
        pinned = [m for m in available if m.contract.get("pinned")]
        best = _ranked([m for m in available if not m.contract.get("pinned")], query)
        best.sort(key=lambda m: m.name not in suggesting)
        chosen = {m.name for m in best[: max(k - len(pinned), 0)]} | {m.name for m in pinned}
        return [m for m in available if m.name in chosen]

    def ranked(self, query: str) -> list[Macro]:
        """The available macros, the best retrieval score for ``query`` first (ties by name)."""
        return _ranked(self.available(), query)

    def tool_schemas(self, macros: Iterable[Macro] | None = None) -> list[dict[str, Any]]:
        return [m.tool_schema() for m in (self._macros.values() if macros is None else macros)]


def _ranked(macros: list[Macro], query: str) -> list[Macro]:
    scores = retrieval_scores(macros, query)
    return [macros[i] for i in sorted(range(len(macros)), key=lambda i: (-scores[i], macros[i].name))]


def retrieval_scores(macros: list[Macro], query: str) -> list[float]:
    """BM25 scores of ``query`` against each macro's name, description, trigger hint and keywords."""
    if not macros:
        return []
    from rank_bm25 import BM25Okapi

    documents = [
        _words(
            " ".join(
                [
                    m.name.replace("_", " "),
                    m.contract["description"],
                    m.contract["trigger_hint"],
                    *m.contract.get("keywords", []),
                ]
            )
        )
        for m in macros
    ]
    return [float(s) for s in BM25Okapi(documents).get_scores(_words(query))]


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _dependency_order(macros: dict[str, Macro]) -> list[str]:
    """Macro names with every dependency before its dependents; errors name the macros. A fallback that no
    registered macro provides is an error too: the executor would skip it silently, recovering without it."""
    graph = {}
    for name in sorted(macros):
        fallback = macros[name].contract.get("fallback_skill")
        if fallback and fallback not in macros:
            raise DefinitionError(
                macros[name].folder / CONTRACT_FILE,
                "fallback_skill",
                f"'{name}' falls back to {fallback}, which no registered macro provides",
            )
        needs = list(macros[name].contract.get("depends_on", []))
        missing = [d for d in needs if d not in macros]
        if missing:
            raise DefinitionError(
                macros[name].folder / CONTRACT_FILE,
                "depends_on",
                f"'{name}' depends on {', '.join(missing)}, which no registered macro provides",
            )
        graph[name] = sorted(needs)
    cycle = dependency_cycle(graph)
    if cycle:
        raise DefinitionError(macros[cycle[0]].folder / CONTRACT_FILE, "depends_on", cycle_message(cycle))
    return list(TopologicalSorter(graph).static_order())


def dependency_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle of ``depends_on`` among the macros of ``graph`` (name to the names it depends on), its first name
    again at its end, or None: the one check, for a run's registry and for ``check-contracts``."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        return list(exc.args[1])
    return None


def cycle_message(cycle: list[str]) -> str:
    return f"dependency cycle: {' -> '.join(cycle)}"
