"""Evidence, before a run, that a macro applies: two router features from the macro registry.

- ``retrieval_score``: the best BM25 score of any available macro for the prompt (the score
  retrieval ranks macros by; see ``macros.registry``).
- ``applicable_macros``: how many available macros suggest at least one call for the task (their
  ``applicability.derive`` proposes it and their preconditions accept it; see ``macros.suggestions``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..macros import MacroRegistry
from ..macros.registry import retrieval_scores
from ..macros.suggestions import suggested_calls


def retrieval_score(prompt: str, macros: MacroRegistry) -> float:
    return max(retrieval_scores(macros.available(), prompt), default=0.0)


def applicable_macros(
    prompt: str, files: Mapping[str, bytes], macros: MacroRegistry, hidden: tuple[Path, ...] = ()
) -> list[str]:
    """The names of the available macros that suggest a call for this prompt and these files; ``hidden``
    are paths the checks must not read (a task's file, verifier and solution)."""
    return [name for name, calls in suggested_calls(prompt, files, macros.available(), hidden).items() if calls]
