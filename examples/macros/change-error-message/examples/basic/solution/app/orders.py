"""Order validation."""


class OrderError(ValueError):
    """An order that cannot be placed."""


def check_quantity(quantity: int) -> int:
    if quantity <= 0:
        raise OrderError("quantity must be a positive number")
    if quantity > 100:
        raise OrderError("too many items in one order")
    return quantity
