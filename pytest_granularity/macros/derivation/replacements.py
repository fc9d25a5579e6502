"""Text replacements a request pins down: a value changed from one to another, in the files it names.

A request states a change in many ways: "from 300 to 600", "typed as 1.71 instead of 1.17",
"should be 5, not 3", "`invoice.paid` is now spelled `invoice.payed`", "rename `a` to `b`", or it
names a constant and only the value it must have ("rounded to 0.01", "at least 3 characters").
Rather than parse each phrasing, the values a prompt gives (quoted texts, numbers, versions,
names) are paired, each pair in both directions, and a pair counts only where the files agree:
the old text must be in a named file and the new one must differ. Phrasings that say which way
a change goes (from/to, instead of, not) rank a pair first; values that only stand near each
other come after; a named constant given only its new value comes last. The macro's own
preconditions (the old text occurs exactly once in each file) then judge every candidate.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from . import QUOTED_TEXT, named_files

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w]|\.\d)")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*_[A-Za-z0-9_]+(?![\w])")
_WORD = re.compile(r"[a-z]+")
_FORWARD = re.compile(r"^\W*(to|->|→|=>|instead of|becomes?|into)\W*$", re.IGNORECASE)
_CHANGED_TO = re.compile(
    r"\b(renam|chang|rais|lower|increas|decreas|set|bump|updat|replac|restor|correct)\w*\b[^.;:]*\b(to|with|by)\W*$",
    re.IGNORECASE,
)
_BACKWARD = re.compile(r"^\W*(not|rather than|but not|is now(?: spelled)?|was changed to|now reads)\W*$", re.IGNORECASE)
_TARGET = re.compile(r"\b(to|be|up to|at least|at most|allows?|expected|should be|must be)\W*$", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^\s*[\"']?([A-Za-z_][\w.-]*)[\"']?\s*[:=]\s*(.+?),?\s*$")
MAX_CANDIDATES = 6
"""The most calls proposed for one request: enough for a stated change's every reading, few enough to list."""


@dataclass(frozen=True)
class PromptValue:
    text: str
    start: int
    end: int
    kind: str
    """``number`` (and versions), ``name`` (identifiers), or ``text``."""
    part: bool = False
    """The last part of a quoted dotted name (``paid`` of `invoice.paid`): paired only with another such part."""


STATED = 2.4
"""The least score of a replacement the request states: a phrasing that orders two values ("from 3 to 5"), a
constant the prompt names, or one it describes and gives a target ("at least 3"). Below it are guesses a
caller with no other evidence (a mined macro's derivation) should not act on: two values that only stand
near each other ("Latin-1" and "UTF-8"), or a constant whose name's words stand near a number ("exit code 2")."""


@dataclass(frozen=True)
class Replacement:
    """A candidate ``{files, old, new}`` call and how firmly the request states it (see ``_pairs``)."""

    call: dict[str, object]
    score: float

    @property
    def stated(self) -> bool:
        return self.score >= STATED

    @property
    def old(self) -> str:
        return str(self.call["old"])

    @property
    def new(self) -> str:
        return str(self.call["new"])

    @property
    def files(self) -> list[str]:
        files = self.call["files"]
        return [str(f) for f in files] if isinstance(files, list) else []


def replacements(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, object]]:
    """Candidate ``{files, old, new}`` calls, the likeliest first."""
    return [r.call for r in ranked_replacements(prompt, files)]


def ranked_replacements(prompt: str, files: Mapping[str, bytes]) -> list[Replacement]:
    """Candidate calls with their scores, the likeliest first; a call read several ways keeps its best score."""
    named = [f for f in named_files(prompt, files) if _text(files[f]) is not None]
    texts = {f: _text(files[f]) or "" for f in named}
    values = prompt_values(prompt)
    scored: list[tuple[float, int, dict[str, object]]] = []
    for score, old, new in _pairs(prompt, values):
        scored += [(score, len(scored), call) for call in _calls_for(old, new, texts)]
    scored += [(score, len(scored), call) for score, call in _constant_calls(prompt, values, texts)]
    ordered = sorted(scored, key=lambda item: (-item[0], item[1]))
    best: dict[str, float] = {}
    for score, _, call in ordered:
        best.setdefault(json.dumps(call, sort_keys=True), score)
    unique = list({json.dumps(c, sort_keys=True): c for _, _, c in reversed(ordered)}.items())[::-1]
    return [Replacement(call, best[key]) for key, call in unique][:MAX_CANDIDATES]


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def prompt_values(prompt: str) -> list[PromptValue]:
    """Quoted texts, and numbers and names outside quotes, in prompt order (a dotted name's last part too)."""
    values = []
    quoted = []
    for m in QUOTED_TEXT.finditer(prompt):
        text = next(g for g in m.groups() if g)
        values.append(PromptValue(text, m.start(), m.end(), _kind(text)))
        if _kind(text) == "name" and "." in text:  # `Class.method`: the method's own name is what a file spells
            values.append(PromptValue(text.rpartition(".")[2], m.start(), m.end(), "name", part=True))
        quoted.append(range(m.start(), m.end()))
    for pattern, kind in ((_NUMBER, "number"), (_NAME, "name")):
        for m in pattern.finditer(prompt):
            if not any(m.start() in span for span in quoted):
                values.append(PromptValue(m.group(0), m.start(), m.end(), kind))
    return sorted(values, key=lambda v: v.start)


def _kind(text: str) -> str:
    if _NUMBER.fullmatch(text):
        return "number"
    if re.fullmatch(r"[A-Za-z_][\w.]*", text):
        return "name"
    return "text"


def _pairs(prompt: str, values: list[PromptValue]) -> Iterator[tuple[float, str, str]]:
    """(score, old, new) readings: a phrasing that orders two values scores 4 (its reverse 1.5, since
    "changed it to" may tell the history rather than the request); two alike values near each other
    score 1 both ways. Only values with none of their kind between them are ordered by a phrasing."""
    for i, a in enumerate(values):
        for k, b in enumerate(values[i + 1 :], start=i + 1):
            between = prompt[a.end : b.start]
            if len(between) > 160:
                break
            adjacent = not any(v.kind == a.kind and v.start >= a.end for v in values[i + 1 : k])
            for x, y in _comparable(a, b):
                if adjacent and (_FORWARD.match(between) or _CHANGED_TO.search(between)):
                    yield from ((4.0, x, y), (1.5, y, x))
                elif adjacent and _BACKWARD.match(between):
                    yield from ((4.0, y, x), (1.5, x, y))
                elif a.kind == "number" or (_alike(x, y) and (a.kind == "text" or _respelled(x, y))):
                    yield from ((1.0, x, y), (1.0, y, x))


def _comparable(a: PromptValue, b: PromptValue) -> list[tuple[str, str]]:
    """Two values of a kind as an (old, new) pair; two texts as the parts that differ, with the words around them."""
    if a.text == b.text or a.kind != b.kind or (a.part != b.part and "." in a.text + b.text):
        return []
    return [_aligned(a.text, b.text)] if a.kind == "text" and _alike(a.text, b.text) else [(a.text, b.text)]


def _respelled(a: str, b: str) -> bool:
    """Two names that differ by little of the longer one (``dedup_days``/``dedupe_days``), not a name and
    a longer name that starts with it (``stem``/``stemmer``)."""
    return _matched(a, b) >= 0.8 * max(len(a), len(b))


def _alike(a: str, b: str) -> bool:
    """Most of the shorter text is in the longer one, in order (a typo and its fix, a name respelled)."""
    return _matched(a, b) >= 0.85 * min(len(a), len(b))


def _matched(a: str, b: str) -> int:
    """How many characters two texts share, in order."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(m.size for m in matcher.get_matching_blocks())


def _aligned(a: str, b: str) -> tuple[str, str]:
    """The parts of two similar texts that differ, with the words around them (a typo in a longer quote)."""
    blocks = [m for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks() if m.size]
    first, last = blocks[0], blocks[-1]
    return a[first.a : last.a + last.size], b[first.b : last.b + last.size]


def _calls_for(old: str, new: str, texts: dict[str, str]) -> list[dict[str, object]]:
    """One call over every named file holding ``old`` exactly once. Where a name is there more
    often, its call or definition (``name(``) may be once; where a number is, the lines that
    assign it (``NAME = 30``, ``"key": "30"``) may be."""
    if not old.strip() or old == new:
        return []
    calls = _once(old, new, texts)
    if _NAME.fullmatch(old) and _NAME.fullmatch(new):
        calls += _once(old + "(", new + "(", texts)
    if _NUMBER.fullmatch(old):
        for f, text in texts.items():
            if text.count(old) > 1:
                calls += [{"files": [f], "old": line, "new": _swap(line, old, new)} for line in _assignments(text, old)]
    return calls


def _once(old: str, new: str, texts: dict[str, str]) -> list[dict[str, object]]:
    once = [f for f, text in texts.items() if text.count(old) == 1]
    return [{"files": once, "old": old, "new": new}] if once else []


def _assignments(text: str, value: str) -> list[str]:
    """The stripped lines of ``text`` that assign ``value`` (as a whole token) and occur once."""
    token = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)")
    lines = []
    for line in text.splitlines():
        stripped = line.strip().rstrip(",")
        match = _ASSIGNMENT.match(stripped)
        if match and token.search(match.group(2)) and text.count(stripped) == 1:
            lines.append(stripped)
    return lines


def _swap(line: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w]|\.\d)", lambda _: new, line, count=1)


def _constant_calls(
    prompt: str, values: list[PromptValue], texts: dict[str, str]
) -> list[tuple[float, dict[str, object]]]:
    """A constant of a named Python file given a new number, scored from 2 to under 4: constants the
    prompt names or describes (words of their name near a number), with the numbers nearest those
    words, and those the prompt gives as a target ("to 0.01", "up to 128", "at least 3"), first."""
    numbers = [v for v in values if v.kind == "number"]
    words = [(m.start(), m.group(0)) for m in _WORD.finditer(prompt.lower())]
    scored = []
    for f, text in texts.items():
        if not f.endswith(".py"):
            continue
        for line, name, current in _constants(text):
            parts = [p for p in name.lower().split("_") if len(p) > 2]
            mentioned = name in prompt
            for number in (n for n in numbers if n.text != current):
                closeness = _closeness(parts, number, words)
                if mentioned or closeness:
                    target = bool(_TARGET.search(prompt[max(0, number.start - 24) : number.start]))
                    score = 2.0 + 0.5 * mentioned + 0.4 * target + min(closeness, 1.0) / 10
                    call: dict[str, object] = {"files": [f], "old": line, "new": _swap(line, current, number.text)}
                    scored.append((score, call))
    return scored


def _constants(text: str) -> Iterator[tuple[str, str, str]]:
    """``(line, NAME, number)`` for each module-level ``NAME = <number>`` line (also ``Decimal("0.1")``)."""
    for line in text.splitlines():
        match = re.fullmatch(r"([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=\s*(.+)", line.rstrip())
        if match is None:
            continue
        found = _NUMBER.findall(match.group(2))
        if len(found) == 1 and text.count(line.rstrip()) == 1:
            yield line.rstrip(), match.group(1), found[0]


def _closeness(parts: list[str], number: PromptValue, words: list[tuple[int, str]]) -> float:
    """How closely words of a constant's name stand to ``number``: 1 / (1 + words between) for each
    within six words (a shared start of four letters counts: retries/retry, min/minimum)."""
    before = [w for pos, w in words if pos < number.start][-6:][::-1]
    after = [w for pos, w in words if pos >= number.end][:6]
    score = 0.0
    for part in parts:
        distances = [d for side in (before, after) for d, w in enumerate(side) if _same_stem(part, w)]
        score += 1 / (1 + min(distances)) if distances else 0.0
    return score


def _same_stem(a: str, b: str) -> bool:
    n = min(4, len(a), len(b))
    return len(b) > 2 and a[:n] == b[:n] and (n == 4 or a == b or a.startswith(b) or b.startswith(a))
