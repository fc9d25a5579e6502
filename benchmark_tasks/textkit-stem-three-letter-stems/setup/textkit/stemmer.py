"""A small suffix-stripping stemmer for English.

This is far simpler than the Porter algorithm: suffix rules are tried in
order and the first one that leaves a plausible stem (at least
:data:`MIN_STEM_LENGTH` letters and containing a vowel) wins.  It is
good enough to group ``"running"``, ``"runs"`` and ``"run"`` together
for keyword extraction, which is all textkit needs.
"""

from __future__ import annotations

from typing import Iterable

MIN_STEM_LENGTH = 3
VOWELS = frozenset("aeiouy")

# (suffix, replacement) pairs, longest and most specific first.
SUFFIX_RULES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("sses", "ss"),
    ("ies", "y"),
    ("ied", "y"),
    ("ingly", ""),
    ("edly", ""),
    ("ness", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("ly", ""),
    ("ed", ""),
)

# Endings after which "es" is a plural suffix rather than part of the stem.
_ES_PLURAL_ENDINGS = ("ch", "sh", "x", "z")
# Words ending like this are not plurals ("glass", "status", "analysis").
_PROTECTED_ENDINGS = ("ss", "us", "is")
# Suffixes after which a doubled final consonant is reduced ("hopping" -> "hop").
_UNDOUBLE_AFTER = frozenset({"ing", "ings", "ed", "edly", "ingly"})
# Doubled letters that are kept ("falling" -> "fall").
_KEEP_DOUBLE = frozenset("lsz")


def _is_valid_stem(candidate: str) -> bool:
    return len(candidate) > MIN_STEM_LENGTH and any(ch in VOWELS for ch in candidate)


def _undouble(candidate: str) -> str:
    last = candidate[-1]
    if (
        len(candidate) > MIN_STEM_LENGTH
        and last == candidate[-2]
        and last not in VOWELS
        and last not in _KEEP_DOUBLE
    ):
        return candidate[:-1]
    return candidate


def _strip_plural(word: str) -> str:
    if not word.endswith("s") or word.endswith(_PROTECTED_ENDINGS):
        return word
    if word.endswith("es") and word[:-2].endswith(_ES_PLURAL_ENDINGS):
        candidate = word[:-2]
    else:
        candidate = word[:-1]
    return candidate if _is_valid_stem(candidate) else word


def stem(word: str) -> str:
    """Return the lower-cased stem of *word*.

    >>> [stem(w) for w in ("running", "ponies", "boxes", "quickly")]
    ['run', 'pony', 'box', 'quick']
    """
    lowered = word.lower()
    if len(lowered) <= MIN_STEM_LENGTH:
        return lowered
    for suffix, replacement in SUFFIX_RULES:
        if not lowered.endswith(suffix):
            continue
        candidate = lowered[: len(lowered) - len(suffix)] + replacement
        if not _is_valid_stem(candidate):
            continue
        if suffix in _UNDOUBLE_AFTER:
            candidate = _undouble(candidate)
        return candidate
    return _strip_plural(lowered)


def stem_words(words: Iterable[str]) -> list[str]:
    """Stem every word in *words*, preserving order."""
    return [stem(word) for word in words]
