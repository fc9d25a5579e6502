"""Higher-level text analysis built on top of the tokenizer.

* :mod:`textkit.analysis.keywords` ranks the most significant terms of a
  text, ignoring stopwords and grouping inflected forms by stem.
* :mod:`textkit.analysis.stats` computes descriptive statistics such as
  word counts, reading time and a Flesch reading-ease score.
* :mod:`textkit.analysis.ngrams` extracts word and character n-grams and
  compares texts by n-gram overlap.
"""

from .keywords import DEFAULT_TOP_N, Keyword, extract_keywords, keyword_scores
from .stats import TextStats, count_syllables, flesch_reading_ease, text_stats

__all__ = [
    "DEFAULT_TOP_N",
    "Keyword",
    "TextStats",
    "count_syllables",
    "extract_keywords",
    "flesch_reading_ease",
    "keyword_scores",
    "text_stats",
]
