"""Shopping carts."""


def add_item(item: str, cart: list[str] | None = None) -> list[str]:
    """Add item to cart, starting a new cart when none is given."""
    if cart is None:
        cart = []
    cart.append(item)
    return cart
