"""URL slugs for titles."""

import re

__all__ = ["make_slug", "split_words"]


def split_words(title: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", title.lower())


def make_slug(title: str, limit: int = 5) -> str:
    return "-".join(split_words(title)[:limit])
