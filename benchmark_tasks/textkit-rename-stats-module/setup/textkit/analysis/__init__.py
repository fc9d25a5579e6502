"""Higher-level text analysis built on top of the tokenizer.

* :mod:`textkit.analysis.keywords` ranks the most significant terms of a
  text, ignoring stopwords and grouping inflected forms by stem.
* :mod:`textkit.analysis.stats` computes descriptive statistics such as
  word counts, reading time and a Flesch reading-ease score.

:func:`run_analysis` runs one analysis by name.  Each name in
:data:`ANALYSES` is a submodule of this package, imported on first use,
so that new analyses can be added without touching the command line.
"""

from importlib import import_module
from typing import Any

from .keywords import DEFAULT_TOP_N, Keyword, extract_keywords, keyword_scores
from .stats import TextStats, count_syllables, flesch_reading_ease, text_stats

#: Analysis name -> the function of the same-named submodule that runs it.
ANALYSES: dict[str, str] = {
    "keywords": "extract_keywords",
    "stats": "text_stats",
}

__all__ = [
    "ANALYSES",
    "DEFAULT_TOP_N",
    "Keyword",
    "TextStats",
    "count_syllables",
    "extract_keywords",
    "flesch_reading_ease",
    "keyword_scores",
    "run_analysis",
    "text_stats",
]


def run_analysis(name: str, text: str, **options: Any) -> Any:
    """Run the analysis called *name* over *text*, passing *options* on.

    >>> run_analysis("stats", "One two three.").words
    3
    """
    try:
        function_name = ANALYSES[name]
    except KeyError:
        known = ", ".join(sorted(ANALYSES))
        raise ValueError(f"unknown analysis {name!r}; expected one of: {known}") from None
    module = import_module(__name__ + "." + name)
    return getattr(module, function_name)(text, **options)
