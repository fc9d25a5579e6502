"""Access to the bundled English stopword list.

The list lives in ``textkit/data/stopwords.txt``: one word per line,
``#`` starts a comment and blank lines are ignored.  Callers can supply
additional lists in the same format with :func:`load_stopwords_file`.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable

STOPWORDS_FILENAME = "stopwords.txt"
COMMENT_PREFIX = "#"


def parse_stopwords(lines: Iterable[str]) -> frozenset[str]:
    """Parse stopword-file *lines* into a set of lower-cased words."""
    words: set[str] = set()
    for line in lines:
        entry = line.split(COMMENT_PREFIX, 1)[0].strip().lower()
        if entry:
            words.add(entry)
    return frozenset(words)


@lru_cache(maxsize=1)
def load_stopwords() -> frozenset[str]:
    """Return the bundled English stopwords (read once, then cached)."""
    resource = resources.files("textkit") / "data" / STOPWORDS_FILENAME
    return parse_stopwords(resource.read_text(encoding="utf-8").splitlines())


def load_stopwords_file(path: str | Path) -> frozenset[str]:
    """Read a user-supplied stopword file in the bundled list's format."""
    file_path = Path(path)
    try:
        text = file_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"stopword file not found: {file_path}") from None
    return parse_stopwords(text.splitlines())


def is_stopword(word: str, extra: Iterable[str] = ()) -> bool:
    """Return True if *word* is a bundled stopword or appears in *extra*."""
    lowered = word.lower()
    return lowered in load_stopwords() or lowered in {item.lower() for item in extra}
