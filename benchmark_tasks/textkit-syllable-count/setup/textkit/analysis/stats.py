"""Descriptive statistics for a piece of text."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

from ..tokenize import split_sentences, tokenize_words

WORDS_PER_MINUTE = 200
SYLLABLE_VOWELS = frozenset("aeiou")

_PARAGRAPH_BREAK_RE = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class TextStats:
    """Summary statistics produced by :func:`text_stats`."""

    characters: int
    characters_no_spaces: int
    words: int
    unique_words: int
    sentences: int
    paragraphs: int
    syllables: int
    average_word_length: float
    average_sentence_length: float
    lexical_diversity: float
    reading_time_seconds: int
    flesch_reading_ease: float

    def as_dict(self) -> dict[str, Any]:
        """Return the statistics as a plain dictionary (e.g. for JSON output)."""
        return asdict(self)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def count_syllables(word: str) -> int:
    """Estimate the number of syllables in an English *word*.

    Counts groups of consecutive vowels, then discounts a silent final
    ``e`` (but not ``-le`` as in ``"table"``).  Every word with at least
    one letter has at least one syllable.
    """
    letters = "".join(ch for ch in word.lower() if ch.isalpha())
    if not letters:
        return 0
    count = 0
    for index, ch in enumerate(letters):
        if ch in SYLLABLE_VOWELS and (index == 0 or letters[index - 1] not in SYLLABLE_VOWELS):
            count += 1
    if letters.endswith("e") and count > 1:
        count -= 1
    return max(count, 1)


def count_paragraphs(text: str) -> int:
    """Return the number of non-empty, blank-line separated paragraphs."""
    return sum(1 for block in _PARAGRAPH_BREAK_RE.split(text) if block.strip())


def reading_time_seconds(word_count: int, words_per_minute: int = WORDS_PER_MINUTE) -> int:
    """Return the estimated reading time in whole seconds, rounded up."""
    if words_per_minute < 1:
        raise ValueError(f"words_per_minute must be a positive integer, got {words_per_minute}")
    return math.ceil(word_count * 60 / words_per_minute)


def flesch_reading_ease(text: str) -> float:
    """Return the Flesch reading-ease score of *text* (higher is easier).

    Returns 0.0 for text without any words.
    """
    words = tokenize_words(text)
    if not words:
        return 0.0
    sentence_count = max(len(split_sentences(text)), 1)
    syllables = sum(count_syllables(word) for word in words)
    return round(
        206.835 - 1.015 * (len(words) / sentence_count) - 84.6 * (syllables / len(words)), 2
    )


def text_stats(text: str, *, words_per_minute: int = WORDS_PER_MINUTE) -> TextStats:
    """Compute :class:`TextStats` for *text*."""
    words = tokenize_words(text)
    sentences = split_sentences(text)
    unique = {word.lower() for word in words}
    return TextStats(
        characters=len(text),
        characters_no_spaces=sum(1 for ch in text if not ch.isspace()),
        words=len(words),
        unique_words=len(unique),
        sentences=len(sentences),
        paragraphs=count_paragraphs(text),
        syllables=sum(count_syllables(word) for word in words),
        average_word_length=round(_ratio(sum(len(word) for word in words), len(words)), 2),
        average_sentence_length=round(_ratio(len(words), len(sentences)), 2),
        lexical_diversity=round(_ratio(len(unique), len(words)), 3),
        reading_time_seconds=reading_time_seconds(len(words), words_per_minute),
        flesch_reading_ease=flesch_reading_ease(text),
    )
