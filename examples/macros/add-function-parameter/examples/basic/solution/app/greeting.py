"""Greetings."""


def greet(name: str, loud: bool = False) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


def farewell(name: str) -> str:
    return f"Goodbye, {name}."
