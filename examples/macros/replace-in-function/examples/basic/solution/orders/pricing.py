"""Prices with tax and discounts, in cents."""


def net_price(cents: int, discount: float) -> int:
    """The price after a discount; fractions of a cent go to the customer."""
    return int(cents * (1 - discount))


def gross_price(cents: int, tax: float) -> int:
    """The price with tax, to the nearest cent."""
    return round(cents * (1 + tax))
