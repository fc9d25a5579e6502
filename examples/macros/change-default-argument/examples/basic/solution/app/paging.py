"""Splitting results into pages."""

from typing import Iterable, TypeVar

T = TypeVar("T")


def paginate(items: Iterable[T], page_size: int = 25, *, drop_empty: bool = True) -> list[list[T]]:
    """Split items into pages of at most page_size items."""
    items = list(items)
    pages = [items[i : i + page_size] for i in range(0, len(items), page_size)]
    return pages if pages or drop_empty else [[]]
