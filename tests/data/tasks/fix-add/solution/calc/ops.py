"""Arithmetic operations."""

SCALE = 1


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return (a + b) * SCALE


def total(values: list[int]) -> int:
    """Sum a list with add()."""
    result = 0
    for i in range(len(values)):
        result = add(result, values[i])
    return result
