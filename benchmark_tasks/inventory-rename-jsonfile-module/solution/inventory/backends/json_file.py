"""Storage backend that persists the catalogue and stock snapshot to a JSON file.

The file is rewritten atomically (write to a temporary sibling, then rename)
after every change, so a crash never leaves a half-written file behind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

from ..errors import BackendError, ValidationError
from ..models import Location, Product, StockLevel
from .memory import MemoryBackend

STORAGE_FORMAT_VERSION = 1


def product_to_dict(product: Product) -> dict[str, Any]:
    """Serialise a product to JSON-compatible types."""
    return {
        "sku": product.sku,
        "name": product.name,
        "unit_cost": str(product.unit_cost),
        "unit_price": str(product.unit_price),
        "category": product.category,
        "reorder_threshold": product.reorder_threshold,
    }


def product_from_dict(data: dict[str, Any]) -> Product:
    """Inverse of :func:`product_to_dict`."""
    return Product(
        sku=data["sku"],
        name=data["name"],
        unit_cost=data["unit_cost"],
        unit_price=data["unit_price"],
        category=data.get("category", "general"),
        reorder_threshold=data.get("reorder_threshold"),
    )


class JsonFileBackend(MemoryBackend):
    """A :class:`MemoryBackend` mirrored to a JSON file on disk."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        if self.path.exists():
            self._load()

    def save_product(self, product: Product) -> None:
        super().save_product(product)
        self._flush()

    def delete_product(self, sku: str) -> None:
        super().delete_product(sku)
        self._flush()

    def save_levels(self, levels: Iterable[StockLevel]) -> None:
        super().save_levels(levels)
        self._flush()

    def _load(self) -> None:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise BackendError(f"{self.path}: corrupt storage file ({exc.msg})") from exc
        version = document.get("format") if isinstance(document, dict) else None
        if version != STORAGE_FORMAT_VERSION:
            raise BackendError(
                f"{self.path}: unsupported storage format {version!r} "
                f"(expected {STORAGE_FORMAT_VERSION})"
            )
        try:
            for item in document.get("products", []):
                product = product_from_dict(item)
                self._products[product.sku] = product
            self._levels = [
                StockLevel(item["sku"], Location.parse(item["location"]), int(item["quantity"]))
                for item in document.get("levels", [])
            ]
        except (KeyError, TypeError, ValidationError) as exc:
            raise BackendError(f"{self.path}: invalid record in storage file: {exc}") from exc

    def _flush(self) -> None:
        document = {
            "format": STORAGE_FORMAT_VERSION,
            "products": [product_to_dict(p) for p in self.list_products()],
            "levels": [
                {"sku": level.sku, "location": level.location.code, "quantity": level.quantity}
                for level in self._levels
            ],
        }
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            raise BackendError(f"cannot write storage file {self.path}: {exc}") from exc
