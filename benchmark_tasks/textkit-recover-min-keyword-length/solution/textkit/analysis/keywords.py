"""Frequency-based keyword extraction.

Words are lower-cased, stopwords and very short tokens are discarded and
the remaining words are grouped by their stem, so ``"parser"`` and
``"parsers"`` count as the same keyword.  Each group is reported under
its most frequent surface form.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from .. import stopwords
from ..stemmer import stem
from ..tokenize import tokenize_words

DEFAULT_TOP_N = 10
MIN_KEYWORD_LENGTH = 3


@dataclass(frozen=True)
class Keyword:
    """A ranked keyword.

    ``term`` is the most common surface form, ``stem`` the grouping key,
    ``count`` the number of occurrences of all forms and ``score`` the
    share of candidate words that belong to this keyword (0.0 - 1.0).
    """

    term: str
    stem: str
    count: int
    score: float


def _candidate_words(text: str, extra_stopwords: Iterable[str]) -> list[str]:
    ignored = stopwords.load_stopwords() | {word.lower() for word in extra_stopwords}
    return [
        word
        for word in tokenize_words(text, lowercase=True)
        if len(word) >= MIN_KEYWORD_LENGTH and not word.isdigit() and word not in ignored
    ]


def keyword_scores(
    text: str, *, extra_stopwords: Iterable[str] = (), use_stemming: bool = True
) -> dict[str, Keyword]:
    """Return a :class:`Keyword` for every candidate word group, keyed by stem.

    With *use_stemming* disabled every distinct word is its own group.
    """
    words = _candidate_words(text, extra_stopwords)
    forms: dict[str, Counter[str]] = {}
    for word in words:
        key = stem(word) if use_stemming else word
        forms.setdefault(key, Counter())[word] += 1

    total = len(words)
    scores: dict[str, Keyword] = {}
    for key, counter in forms.items():
        count = sum(counter.values())
        term = min(counter, key=lambda form: (-counter[form], form))
        scores[key] = Keyword(term=term, stem=key, count=count, score=count / total)
    return scores


def extract_keywords(
    text: str,
    top_n: int = DEFAULT_TOP_N,
    *,
    extra_stopwords: Iterable[str] = (),
    use_stemming: bool = True,
) -> list[Keyword]:
    """Return the *top_n* keywords of *text*, most frequent first.

    Ties are broken alphabetically by term so results are deterministic.

    >>> text = "Parsers parse input. The parser reads input; parsers build trees."
    >>> [(k.term, k.count) for k in extract_keywords(text, 2)]
    [('parsers', 3), ('input', 2)]
    """
    if top_n < 1:
        raise ValueError(f"top_n must be a positive integer, got {top_n}")
    scores = keyword_scores(text, extra_stopwords=extra_stopwords, use_stemming=use_stemming)
    ranked = sorted(scores.values(), key=lambda kw: (-kw.count, kw.term))
    return ranked[:top_n]
