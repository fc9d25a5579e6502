"""Formatting results."""

from .ops import total


def describe(values: list[int]) -> str:
    """A one-line description of a list's total."""
    return f"total={total(values)}"
