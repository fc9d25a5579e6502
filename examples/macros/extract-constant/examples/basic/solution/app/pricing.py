"""Prices and VAT."""

VAT_FACTOR = 1.2


def gross(net: float, rounded: bool = True) -> float:
    """The price with 20% VAT added."""
    value = net * VAT_FACTOR
    return round(value, 2) if rounded else value


def describe(net: float) -> str:
    return f"{net:.2f} net, {gross(net):.2f} gross"
