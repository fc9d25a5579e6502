"""Turn arbitrary text into URL-friendly slugs.

A slug consists of ASCII letters and digits joined by a separator
(``"Crème Brûlée: A How-To"`` -> ``"creme-brulee-a-how-to"``).  Slugs are
capped at :data:`MAX_SLUG_LENGTH` characters and are cut at a word
boundary whenever possible.
"""

from __future__ import annotations

import re
from typing import Container

from . import normalize

MAX_SLUG_LENGTH = 64
DEFAULT_SEPARATOR = "-"

# Letters that do not decompose into ASCII base letter + combining mark.
TRANSLITERATIONS: dict[str, str] = {
    "ß": "ss",
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "ø": "o",
    "Ø": "O",
    "đ": "d",
    "Đ": "D",
    "ł": "l",
    "Ł": "L",
    "þ": "th",
    "Þ": "TH",
}

_TRANSLITERATION_TABLE = str.maketrans(TRANSLITERATIONS)
_WORD_RE = re.compile(r"[A-Za-z0-9]+")
_INNER_APOSTROPHE_RE = re.compile(r"(?<=\w)'(?=\w)")


def _validate(separator: str, max_length: int) -> None:
    if not separator or any(ch.isalnum() or ch.isspace() for ch in separator):
        raise ValueError(
            "separator must be a non-empty string without letters, digits or "
            f"whitespace, got {separator!r}"
        )
    if max_length < 1:
        raise ValueError(f"max_length must be at least 1, got {max_length}")


def slugify(
    text: str,
    *,
    separator: str = DEFAULT_SEPARATOR,
    max_length: int = MAX_SLUG_LENGTH,
    lowercase: bool = True,
) -> str:
    """Return a slug for *text*.

    Accents are stripped, apostrophes inside words are dropped
    (``"don't"`` -> ``"dont"``) and every other run of non-alphanumeric
    characters becomes a single *separator*.  The result may be empty if
    *text* contains no letters or digits.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    _validate(separator, max_length)
    ascii_text = normalize.replace_smart_punctuation(text)
    ascii_text = normalize.strip_accents(ascii_text.translate(_TRANSLITERATION_TABLE))
    ascii_text = _INNER_APOSTROPHE_RE.sub("", ascii_text)
    slug = separator.join(_WORD_RE.findall(ascii_text))
    if lowercase:
        slug = slug.lower()
    return truncate_slug(slug, max_length, separator=separator)


def truncate_slug(slug: str, max_length: int, *, separator: str = DEFAULT_SEPARATOR) -> str:
    """Shorten *slug* to at most *max_length* characters.

    The slug is cut at the last separator that keeps it within the limit;
    if the first word alone is too long it is cut mid-word instead.
    """
    if len(slug) <= max_length:
        return slug
    cut = slug.rfind(separator, 0, max_length + 1)
    if cut <= 0:
        return slug[:max_length].rstrip(separator)
    return slug[:cut]


def unique_slug(
    text: str,
    existing: Container[str],
    *,
    separator: str = DEFAULT_SEPARATOR,
    max_length: int = MAX_SLUG_LENGTH,
) -> str:
    """Return a slug for *text* that is not in *existing*.

    Collisions are resolved by appending ``-2``, ``-3`` and so on, trimming
    the base slug so that the result still fits in *max_length*.
    """
    base = slugify(text, separator=separator, max_length=max_length)
    if not base:
        raise ValueError(f"cannot build a slug from {text!r}: it has no letters or digits")
    if base not in existing:
        return base
    counter = 2
    while True:
        suffix = f"-{counter}"
        room = max_length - len(suffix)
        if room < 1:
            raise ValueError(
                f"max_length {max_length} is too short to add the uniqueness suffix {suffix!r}"
            )
        candidate = truncate_slug(base, room, separator=separator) + suffix
        if candidate not in existing:
            return candidate
        counter += 1
