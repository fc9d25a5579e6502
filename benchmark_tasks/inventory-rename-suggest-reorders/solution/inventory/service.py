"""High-level facade combining catalogue, stock, reservations and valuation.

:class:`InventoryService` is what applications (and the command line
interface) use. It keeps the stock ledger and the FIFO valuation in step,
applies warehouse settings and persists snapshots through a storage backend.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import inventory.pricing as pricing
import inventory.reorder

from . import config, formats
from .backends import StorageBackend, create_backend
from .errors import UnknownProductError
from .models import Location, Product, ReorderRule, Reservation
from .reservations import ReservationBook
from .stock import StockLedger


class InventoryService:
    """Facade over the catalogue, stock ledger, reservations and valuation."""

    def __init__(
        self,
        backend: StorageBackend | None = None,
        settings: config.Settings | None = None,
    ) -> None:
        self.settings = settings or config.Settings()
        self.backend = backend or create_backend(self.settings.backend, self.settings.data_path)
        self.ledger = StockLedger()
        self.valuation = pricing.FifoValuation()
        self.reservations = ReservationBook(
            self.ledger, ttl_minutes=self.settings.reservation_ttl_minutes
        )
        self.rules: dict[str, ReorderRule] = {}
        for level in self.backend.load_levels():
            product = self.backend.get_product(level.sku)
            self.ledger.receive(level.sku, level.location, level.quantity, note="restored")
            self.valuation.receive(level.sku, level.quantity, product.unit_cost)

    @classmethod
    def from_config(
        cls, path: str | Path | None = None, **overrides: object
    ) -> InventoryService:
        """Create a service from a JSON config file and keyword overrides."""
        return cls(settings=config.load_settings(path, overrides or None))

    # -- catalogue ---------------------------------------------------------

    def add_product(self, product: Product) -> None:
        """Add or update a product in the catalogue."""
        self.backend.save_product(product)

    def product(self, sku: str) -> Product:
        """Look up a product; raises :class:`UnknownProductError` if missing."""
        return self.backend.get_product(sku)

    def products(self) -> list[Product]:
        """All catalogue products, sorted by SKU."""
        return self.backend.list_products()

    def set_rule(self, rule: ReorderRule) -> None:
        """Register an explicit reorder rule for a catalogued product."""
        self.product(rule.sku)
        self.rules[rule.sku] = rule

    # -- stock -------------------------------------------------------------

    def receive(
        self,
        sku: str,
        quantity: int,
        location: Location | str | None = None,
        unit_cost: Decimal | str | None = None,
    ) -> int:
        """Book a goods receipt; returns the new quantity in that location."""
        product = self.product(sku)
        loc = Location.coerce(location or self.settings.default_location)
        new_quantity = self.ledger.receive(sku, loc, quantity, note="goods receipt")
        cost = product.unit_cost if unit_cost is None else unit_cost
        self.valuation.receive(sku, quantity, cost)
        return new_quantity

    def move(self, sku: str, quantity: int, source: Location | str, destination: Location | str) -> None:
        """Move stock between two locations."""
        self.product(sku)
        self.ledger.transfer(sku, source, destination, quantity)

    def on_hand(self) -> dict[str, int]:
        """On-hand units for every catalogued product (zero when out of stock)."""
        totals = self.ledger.totals()
        return {p.sku: totals.get(p.sku, 0) for p in self.products()}

    # -- orders ------------------------------------------------------------

    def reserve(self, sku: str, quantity: int, order_ref: str) -> Reservation:
        """Reserve stock for a customer order."""
        self.product(sku)
        return self.reservations.reserve(sku, quantity, order_ref)

    def ship(self, reservation_id: str) -> Decimal:
        """Fulfil a reservation and return the FIFO cost of the goods shipped."""
        reservation = self.reservations.get(reservation_id)
        self.reservations.fulfil(reservation_id)
        return self.valuation.consume(reservation.sku, reservation.quantity)

    def quote(self, sku: str, quantity: int, discount_percent: Decimal | int | str = 0) -> Decimal:
        """Tax-inclusive price for ``quantity`` units of ``sku``."""
        product = self.product(sku)
        unit_gross = pricing.gross_price(product.unit_price, self.settings.tax_rate)
        return pricing.line_total(unit_gross, quantity, discount_percent)

    # -- planning and valuation -------------------------------------------

    def inventory_value(self) -> Decimal:
        """FIFO value of all stock on hand."""
        return self.valuation.total_value()

    def reorder_suggestions(
        self, demand_history: Mapping[str, Sequence[int]] | None = None
    ) -> list[inventory.reorder.ReorderSuggestion]:
        """Products that should be reordered, using the configured threshold."""
        return inventory.reorder.plan_reorders(
            self.products(),
            self.on_hand(),
            demand_history=demand_history,
            rules=self.rules,
            default_threshold=self.settings.reorder_threshold,
        )

    # -- import / export / persistence ------------------------------------

    def import_records(self, records: Iterable[formats.StockRecord]) -> int:
        """Add products and receive stock from imported records; return the count."""
        count = 0
        for record in records:
            try:
                self.product(record.sku)
            except UnknownProductError:
                self.add_product(record.to_product())
            if record.quantity > 0:
                self.receive(record.sku, record.quantity, record.location, record.unit_cost)
            count += 1
        return count

    def import_csv(self, path: str | Path) -> int:
        """Import a stock CSV file (see :mod:`inventory.formats`)."""
        return self.import_records(formats.read_stock_csv(path))

    def export_records(self) -> list[formats.StockRecord]:
        """Current stock as records, one per SKU and location."""
        records = []
        for level in self.ledger.levels():
            product = self.product(level.sku)
            records.append(
                formats.StockRecord(
                    sku=level.sku,
                    name=product.name,
                    location=level.location,
                    quantity=level.quantity,
                    unit_cost=product.unit_cost,
                    unit_price=product.unit_price,
                )
            )
        return records

    def save(self) -> None:
        """Persist the current stock levels through the backend."""
        self.backend.save_levels(self.ledger.levels())
