"""A text replaced: the same old text by the same new one, once in each file a change touches, whatever the
files are (a version in ``pyproject.toml``, ``__init__.py`` and the README; an event name in JSON and INI).

Such a change is a rewrite no Python shape spans: its sites are lines of any kind of file. The text is found
where the files differ, widened to whole tokens (``0.4.2``, ``invoice.payed``), or to the line where the token
is not unique in a lone file (``DEFAULT_MAX_RETRIES = 3``); every file must make the same replacement, once.
The miner carries a recognised replacement out with the builtin ``replace_and_verify``'s own preconditions,
run and validation (the text must occur exactly once in each file, the suite must pass).
What is mined is the evidence that the project makes such changes, and the examples its contract replays.

A mined macro knows its shape, not when a request wants it, so its ``derive`` proposes only replacements the
request states (``STATED``): a guess passes the project's own tests as often as not, and is then harmful.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..macros.contract import BUILTIN_FOLDER, load_macro
from ..macros.derivation import named_files
from ..macros.derivation.replacements import ranked_replacements
from .differing import replaced_once
from .edits import text

__all__ = ["Replaced", "derive_arguments", "pieces", "preconditions", "replaced", "run", "validate"]

_ENGINE = load_macro(BUILTIN_FOLDER / "replace-and-verify")
preconditions, run, validate = _ENGINE.preconditions, _ENGINE.run, _ENGINE.validate


@dataclass(frozen=True)
class Replaced:
    """A replacement's call: the files it touches and the text replaced there."""

    files: tuple[str, ...]
    old: str
    new: str

    def call(self) -> dict[str, Any]:
        return {"files": list(self.files), "old": self.old, "new": self.new}


def replaced(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> Replaced | None:
    """The replacement the change from ``before`` to ``after`` makes, when every file it changes (none added
    or removed) makes the same one, once; None otherwise."""
    changed = sorted(p for p in before if before[p] != after.get(p))
    if not changed or before.keys() != after.keys():
        return None
    found = _made_in(changed, before, after)
    return found if found is not None and found.files == tuple(changed) else None


def pieces(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[dict[str, Any]]:
    """The replacement call that makes part of the change: the one most of its files make, once each. A change
    that adds or removes files has none: the references it rewrites are a move's (``moves``)."""
    if before.keys() != after.keys():
        return []
    found = _made_in(sorted(p for p in before if before[p] != after[p]), before, after)
    return [found.call()] if found is not None else []


def derive_arguments(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, object]]:
    """The replacements the request states, the likeliest first (the module docstring says why only those).
    One whose text a file the request names still holds after the call only begins the change (a rename
    wanted everywhere, made in the one file where the name occurs once): it passes the tests half-done, so
    it is not proposed."""
    named = named_files(prompt, files)
    return [
        r.call
        for r in ranked_replacements(prompt, files)
        if r.stated and not any(r.old in text(files[p]) for p in named if p not in r.files)
    ]


def _made_in(changed: list[str], before: Mapping[str, bytes], after: Mapping[str, bytes]) -> Replaced | None:
    """The replacement most of ``changed`` make (in path order on a tie), with the files that make it."""
    made = {p: replaced_once(text(before[p]), text(after[p]), alone=len(changed) == 1) for p in changed}
    counts = Counter(pair for pair in made.values() if pair is not None)
    if not counts:
        return None
    (old, new), _ = counts.most_common(1)[0]
    return Replaced(tuple(p for p in changed if made[p] == (old, new)), old, new)
