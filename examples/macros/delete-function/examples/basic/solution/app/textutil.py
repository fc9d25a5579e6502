"""Text helpers."""

import re


def slugify(text: str) -> str:
    """Lower-case words joined by hyphens."""
    return "-".join(_words(text))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())
