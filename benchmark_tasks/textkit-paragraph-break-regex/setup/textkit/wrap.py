"""Word wrapping, filling, justification and shortening.

Unlike :mod:`textwrap`, these functions always treat a run of whitespace
as a single word separator and never hyphenate.  Words longer than the
available width are split across lines unless ``break_long_words`` is
false, in which case they overflow on a line of their own.
"""

from __future__ import annotations

import re

from .normalize import collapse_whitespace

DEFAULT_WIDTH = 72
DEFAULT_PLACEHOLDER = "..."

_PARAGRAPH_BREAK_RE = re.compile(r"\n\n")


def wrap_text(
    text: str,
    width: int = DEFAULT_WIDTH,
    *,
    initial_indent: str = "",
    subsequent_indent: str = "",
    break_long_words: bool = True,
) -> list[str]:
    """Wrap *text* into lines of at most *width* characters.

    *initial_indent* is prepended to the first line and *subsequent_indent*
    to all following lines; both count towards *width*.
    """
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    for indent in (initial_indent, subsequent_indent):
        if len(indent) >= width:
            raise ValueError(f"indent {indent!r} leaves no room for text at width {width}")

    words = text.split()
    lines: list[str] = []
    current: list[str] = []
    current_len = 0
    indent = initial_indent
    i = 0
    while i < len(words):
        word = words[i]
        available = width - len(indent)
        needed = current_len + 1 + len(word) if current else len(word)
        if needed <= available:
            current.append(word)
            current_len = needed
            i += 1
            continue
        if current:
            lines.append(indent + " ".join(current))
            current = []
            current_len = 0
            indent = subsequent_indent
            continue
        # A single word that does not fit on an empty line.
        if break_long_words:
            lines.append(indent + word[:available])
            words[i] = word[available:]
        else:
            lines.append(indent + word)
            i += 1
        indent = subsequent_indent
    if current:
        lines.append(indent + " ".join(current))
    return lines


def fill_text(text: str, width: int = DEFAULT_WIDTH, **kwargs: object) -> str:
    """Wrap *text* and join the lines with newlines.

    Keyword arguments are passed through to :func:`wrap_text`.
    """
    return "\n".join(wrap_text(text, width, **kwargs))  # type: ignore[arg-type]


def split_paragraphs(text: str) -> list[str]:
    """Split *text* on blank lines, dropping empty paragraphs."""
    return [part.strip() for part in _PARAGRAPH_BREAK_RE.split(text) if part.strip()]


def fill_paragraphs(text: str, width: int = DEFAULT_WIDTH) -> str:
    """Fill each paragraph of *text* separately, keeping blank lines between them."""
    return "\n\n".join(fill_text(paragraph, width) for paragraph in split_paragraphs(text))


def justify_line(line: str, width: int) -> str:
    """Pad the gaps between words of *line* so that it is exactly *width* long.

    Extra spaces go to the leftmost gaps first.  A line with a single word
    is returned unchanged (apart from surrounding whitespace).
    """
    words = line.split()
    if len(words) < 2:
        return " ".join(words)
    letters = sum(len(word) for word in words)
    gaps = len(words) - 1
    spaces = width - letters
    if spaces < gaps:
        raise ValueError(f"line is too long to justify at width {width}: {line!r}")
    base, extra = divmod(spaces, gaps)
    parts: list[str] = []
    for index, word in enumerate(words[:-1]):
        parts.append(word)
        parts.append(" " * (base + (1 if index < extra else 0)))
    parts.append(words[-1])
    return "".join(parts)


def justify_text(text: str, width: int = DEFAULT_WIDTH) -> str:
    """Wrap *text* and fully justify every line except the last one."""
    lines = wrap_text(text, width)
    justified = [justify_line(line, width) for line in lines[:-1]]
    return "\n".join(justified + lines[-1:])


def shorten(text: str, width: int, placeholder: str = DEFAULT_PLACEHOLDER) -> str:
    """Collapse whitespace and truncate *text* to fit in *width* characters.

    Truncation happens at a word boundary and *placeholder* is appended;
    text that already fits is returned with only its whitespace collapsed.

    >>> shorten("The quick brown fox", 12)
    'The quick...'
    """
    if width < len(placeholder) + 1:
        raise ValueError(
            f"width {width} is too small for placeholder {placeholder!r}; "
            f"need at least {len(placeholder) + 1}"
        )
    collapsed = collapse_whitespace(text)
    if len(collapsed) <= width:
        return collapsed
    room = width - len(placeholder)
    cut = collapsed.rfind(" ", 0, room + 1)
    if cut == -1:
        return collapsed[:room] + placeholder
    return collapsed[:cut].rstrip() + placeholder
