"""Higher-level text analysis built on top of the tokenizer.

* :mod:`textkit.analysis.keywords` ranks the most significant terms of a
  text, ignoring stopwords and grouping inflected forms by stem.
* :mod:`textkit.analysis.stats` computes descriptive statistics such as
  word counts, reading time and a Flesch reading-ease score.
"""

from .keywords import DEFAULT_KEYWORD_COUNT, Keyword, extract_keywords, keyword_scores
from .stats import TextStats, count_syllables, flesch_reading_ease, text_stats

__all__ = [
    "DEFAULT_KEYWORD_COUNT",
    "Keyword",
    "TextStats",
    "count_syllables",
    "extract_keywords",
    "flesch_reading_ease",
    "keyword_scores",
    "text_stats",
]
