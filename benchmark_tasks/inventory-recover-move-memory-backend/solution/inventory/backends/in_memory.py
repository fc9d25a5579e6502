"""In-memory storage backend, the default for tests and short-lived sessions."""

from __future__ import annotations

from typing import Iterable

from inventory.errors import UnknownProductError
from inventory.models import Product, StockLevel
from inventory.backends.base import StorageBackend


class MemoryBackend(StorageBackend):
    """Keeps products and stock snapshots in dictionaries and lists."""

    def __init__(self) -> None:
        self._products: dict[str, Product] = {}
        self._levels: list[StockLevel] = []

    def get_product(self, sku: str) -> Product:
        try:
            return self._products[sku]
        except KeyError:
            raise UnknownProductError(sku) from None

    def save_product(self, product: Product) -> None:
        self._products[product.sku] = product

    def delete_product(self, sku: str) -> None:
        if sku not in self._products:
            raise UnknownProductError(sku)
        del self._products[sku]

    def list_products(self) -> list[Product]:
        return [self._products[sku] for sku in sorted(self._products)]

    def save_levels(self, levels: Iterable[StockLevel]) -> None:
        self._levels = [level for level in levels if level.quantity > 0]

    def load_levels(self) -> list[StockLevel]:
        return list(self._levels)
