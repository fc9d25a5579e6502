"""Changed lines: a change counted line by line, so the part of it that macro calls made can be measured.

A macro is worth having when it does part of a change that an agent then finishes. Whether the run's
macros or the reference agent's macro calls did it, the measure is the same: the lines a change
removes and adds (per file, as a diff with no context counts them) that macro calls wrote too, over
all the lines the change has.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence

Lines = Counter[tuple[str, str, str]]
"""Changed lines as (file, ``+`` or ``-``, the line): a multiset, since a change may add a line twice."""


def changed_lines(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> Lines:
    """Every line removed from or added to a text file between ``before`` and ``after``."""
    found: Lines = Counter()
    for path in sorted(before.keys() | after.keys()):
        if before.get(path) == after.get(path):
            continue
        old, new = _lines(before.get(path, b"")), _lines(after.get(path, b""))
        if old == new or old is None or new is None:
            continue
        for line in difflib.unified_diff(old, new, n=0, lineterm=""):
            if line[:1] in "+-" and not line.startswith(("+++", "---")):
                found[(path, line[0], line[1:])] += 1
    return found


def produced(reference: Lines, made: Lines) -> int:
    """The reference's changed lines that ``made`` has too."""
    return sum((reference & made).values())


def share(reference: Lines, made: Lines) -> float | None:
    """The share of the reference's changed lines that ``made`` has; None for a change of no text lines."""
    total = sum(reference.values())
    return round(produced(reference, made) / total, 3) if total else None


def as_records(lines: Lines) -> list[list[str]]:
    """The lines as a run record carries them: ``[file, sign, line]``, in file order, each as often as counted."""
    return [list(key) for key in sorted(lines.elements())]


def from_records(records: Sequence[Sequence[str]]) -> Lines:
    return Counter((str(path), str(sign), str(text)) for path, sign, text in records)


def _lines(data: bytes) -> list[str] | None:
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
