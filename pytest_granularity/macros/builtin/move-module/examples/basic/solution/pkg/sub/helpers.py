"""Helpers to move into the sub package."""


def double(x: int) -> int:
    """Twice x."""
    return 2 * x
