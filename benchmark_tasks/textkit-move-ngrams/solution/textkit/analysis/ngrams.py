"""N-gram extraction for token sequences and character strings."""

from __future__ import annotations

from collections import Counter
from typing import Sequence, TypeVar

import textkit.tokenize as tok

T = TypeVar("T")

PAD_CHARACTER = " "


def sliding_window(items: Sequence[T], size: int, step: int = 1) -> list[tuple[T, ...]]:
    """Return every window of *size* consecutive items, advancing by *step*.

    >>> sliding_window([1, 2, 3, 4], 2)
    [(1, 2), (2, 3), (3, 4)]
    """
    if size < 1:
        raise ValueError(f"window size must be a positive integer, got {size}")
    if step < 1:
        raise ValueError(f"step must be a positive integer, got {step}")
    return [tuple(items[i : i + size]) for i in range(0, len(items) - size + 1, step)]


def word_ngrams(text: str, n: int, *, lowercase: bool = True) -> list[tuple[str, ...]]:
    """Return the word *n*-grams of *text* in order of appearance."""
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    return sliding_window(tok.tokenize_words(text, lowercase=lowercase), n)


def char_ngrams(text: str, n: int, *, pad: bool = False) -> list[str]:
    """Return the character *n*-grams of *text*.

    With *pad* the text is surrounded by ``n - 1`` copies of
    :data:`PAD_CHARACTER`, so that leading and trailing characters appear
    in as many n-grams as inner ones.
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    if pad:
        padding = PAD_CHARACTER * (n - 1)
        text = f"{padding}{text}{padding}"
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def ngram_counts(text: str, n: int, *, lowercase: bool = True) -> Counter[tuple[str, ...]]:
    """Count how often each word *n*-gram occurs in *text*."""
    return Counter(word_ngrams(text, n, lowercase=lowercase))


def most_common_ngrams(
    text: str, n: int, k: int = 10, *, lowercase: bool = True
) -> list[tuple[tuple[str, ...], int]]:
    """Return the *k* most frequent word *n*-grams with their counts.

    Ties are broken alphabetically so that the result is deterministic.
    """
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    counts = ngram_counts(text, n, lowercase=lowercase)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]


def jaccard_similarity(a: str, b: str, n: int = 3) -> float:
    """Return the Jaccard similarity of the padded character *n*-gram sets.

    The comparison is case-insensitive.  Two texts without any n-grams
    (only possible for empty strings and ``n == 1``) count as identical.
    """
    grams_a = set(char_ngrams(a.lower(), n, pad=True))
    grams_b = set(char_ngrams(b.lower(), n, pad=True))
    union = grams_a | grams_b
    if not union:
        return 1.0
    return len(grams_a & grams_b) / len(union)
