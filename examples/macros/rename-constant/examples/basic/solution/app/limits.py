"""Request limits."""

ITEM_LIMIT = 50


def clamp(count: int) -> int:
    """At most ITEM_LIMIT."""
    return min(count, ITEM_LIMIT)
