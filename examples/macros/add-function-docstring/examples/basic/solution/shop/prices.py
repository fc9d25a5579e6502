"""Price helpers."""


def parse_price(text: str) -> int:
    """Parse a decimal price string into cents."""
    whole, _, cents = text.strip().partition(".")
    return int(whole) * 100 + int(cents.ljust(2, "0")[:2])


def format_price(cents: int) -> str:
    """Format cents as a decimal string."""
    return f"{cents // 100}.{cents % 100:02d}"
