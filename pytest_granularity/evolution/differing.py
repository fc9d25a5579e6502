"""Where two texts differ, as one replacement: the span between what they share at both ends, widened to
whole tokens (``0.4.2``, ``invoice.payed``) or to its line. Mining reads a text replacement from a change by it
(``replaced``), and a mined shape applies a named constant's stated new value by the tokens it changes
(``engine``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

_TOKEN = re.compile(r"[\w.\-]")
_EDGES = ".-"


def common_ends(old: Sequence[Any], new: Sequence[Any]) -> tuple[int, int]:
    """How many items ``old`` and ``new`` share at their start, and then at their end: what lies between is
    all that differs."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return start, end


def changed_tokens(old: str, new: str) -> tuple[str, str] | None:
    """The whole tokens ``old`` replaces, once, to become ``new`` (``0.1`` and ``0.01`` of two lines that
    assign ``Decimal("0.1")`` and ``Decimal("0.01")``); None when they occur more than once."""
    return replaced_once(old, new, alone=False)


def replaced_once(old: str, new: str, alone: bool) -> tuple[str, str] | None:
    """The text ``old`` replaces, once, to become ``new``: whole tokens, or, in a file changed ``alone``, the
    line when the tokens occur elsewhere too; None when the change spans lines (several edits, or statements
    added), which is no one replacement."""
    start, end = common_ends(old, new)
    left, right = _widened(old, start, len(old) - end, _TOKEN.match)
    wide = [(left, right)]
    if alone:
        wide.append(_widened(old, start, len(old) - end, lambda c: c not in "\n"))
    for left, right in wide:
        was, now = old[left:right].strip(), new[left : len(new) - (len(old) - right)].strip()
        if was and "\n" not in was + now and old.count(was) == 1 and old.replace(was, now, 1) == new:
            return was, now
    return None


def _widened(text: str, start: int, end: int, inside: Callable[[str], object]) -> tuple[int, int]:
    """``start`` and ``end`` moved out while the characters beside them are ``inside`` the unit, but not onto a
    token's trailing or leading punctuation (the full stop after ``1.04.``)."""
    left, right = start, end
    while left > 0 and inside(text[left - 1]):
        left -= 1
    while right < len(text) and inside(text[right]):
        right += 1
    while left < start and text[left] in _EDGES:
        left += 1
    while right > end and text[right - 1] in _EDGES:
        right -= 1
    return left, right
