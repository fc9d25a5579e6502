"""Arithmetic with a scale factor."""

SCALE = 1


def add(a: int, b: int) -> int:
    """Add two numbers, scaled."""
    return (a + b) * SCALE
