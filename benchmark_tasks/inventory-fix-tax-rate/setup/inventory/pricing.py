"""Pricing and stock valuation.

Money is always handled as :class:`~decimal.Decimal` and rounded to
:data:`CURRENCY_QUANTUM` with :data:`ROUNDING_MODE` at the edges (totals,
quotes, valuations) -- never in the middle of a calculation.
Stock is valued first-in, first-out (FIFO) using :class:`FifoValuation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Iterable, Mapping

from inventory.errors import InsufficientStockError, ValidationError
from inventory.models import Product, to_decimal

CURRENCY_QUANTUM = Decimal("0.01")
ROUNDING_MODE = ROUND_HALF_UP
DEFAULT_TAX_RATE = Decimal("0.19")
MAX_DISCOUNT_PERCENT = Decimal(100)


def round_money(amount: Decimal | int | str) -> Decimal:
    """Round ``amount`` to whole cents using half-up rounding."""
    return to_decimal(amount, "amount").quantize(CURRENCY_QUANTUM, rounding=ROUNDING_MODE)


def gross_price(net: Decimal | int | str, tax_rate: Decimal = DEFAULT_TAX_RATE) -> Decimal:
    """Return the tax-inclusive price for a net price."""
    rate = to_decimal(tax_rate, "tax_rate")
    if rate < 0:
        raise ValidationError(f"tax_rate cannot be negative, got {tax_rate}")
    return round_money(to_decimal(net, "net") * (1 + rate))


def line_total(
    unit_price: Decimal | int | str,
    quantity: int,
    discount_percent: Decimal | int | str = 0,
) -> Decimal:
    """Price of ``quantity`` units after a percentage discount, rounded to cents."""
    if quantity < 0:
        raise ValidationError(f"quantity cannot be negative, got {quantity}")
    discount = to_decimal(discount_percent, "discount_percent")
    if not 0 <= discount <= MAX_DISCOUNT_PERCENT:
        raise ValidationError(
            f"discount_percent must be between 0 and {MAX_DISCOUNT_PERCENT}, got {discount_percent}"
        )
    subtotal = to_decimal(unit_price, "unit_price") * quantity
    return round_money(subtotal * (MAX_DISCOUNT_PERCENT - discount) / MAX_DISCOUNT_PERCENT)


def margin_percent(product: Product) -> Decimal:
    """Gross margin of ``product`` as a percentage of its selling price."""
    if product.unit_price == 0:
        raise ValidationError(f"product {product.sku} has no selling price; margin is undefined")
    return round_money((product.unit_price - product.unit_cost) / product.unit_price * 100)


def stock_value(products: Iterable[Product], quantities: Mapping[str, int]) -> Decimal:
    """Value stock at each product's standard ``unit_cost``."""
    total = sum(
        (p.unit_cost * quantities.get(p.sku, 0) for p in products),
        start=Decimal(0),
    )
    return round_money(total)


@dataclass
class CostLayer:
    """Units received together at the same unit cost."""

    quantity: int
    unit_cost: Decimal


class FifoValuation:
    """First-in, first-out cost layers per SKU.

    Each receipt adds a layer; consuming stock draws from the oldest layers
    first and returns the cost of goods sold.
    """

    def __init__(self) -> None:
        self._layers: dict[str, list[CostLayer]] = {}

    def receive(self, sku: str, quantity: int, unit_cost: Decimal | int | str) -> None:
        """Add a cost layer of ``quantity`` units at ``unit_cost``."""
        if quantity <= 0:
            raise ValidationError(f"quantity must be positive, got {quantity}")
        cost = to_decimal(unit_cost, "unit_cost")
        if cost < 0:
            raise ValidationError(f"unit_cost cannot be negative, got {unit_cost}")
        self._layers.setdefault(sku, []).append(CostLayer(quantity, cost))

    def consume(self, sku: str, quantity: int) -> Decimal:
        """Remove ``quantity`` units, oldest first, and return their total cost."""
        if quantity <= 0:
            raise ValidationError(f"quantity must be positive, got {quantity}")
        layers = self._layers.get(sku, [])
        available = sum(layer.quantity for layer in layers)
        if quantity > available:
            raise InsufficientStockError(sku, quantity, available)
        cost = Decimal(0)
        remaining = quantity
        index = 0
        while remaining > 0:
            layer = layers[index]
            take = min(remaining, layer.quantity)
            cost += take * layer.unit_cost
            layer.quantity -= take
            remaining -= take
            index += 1
        self._layers[sku] = [layer for layer in layers if layer.quantity > 0]
        return round_money(cost)

    def layers(self, sku: str) -> list[CostLayer]:
        """Copies of the remaining cost layers for ``sku``, oldest first."""
        return [CostLayer(layer.quantity, layer.unit_cost) for layer in self._layers.get(sku, [])]

    def quantity(self, sku: str) -> int:
        """Units of ``sku`` still held in cost layers."""
        return sum(layer.quantity for layer in self._layers.get(sku, []))

    def value(self, sku: str) -> Decimal:
        """FIFO value of the remaining units of ``sku``."""
        total = sum(
            (layer.quantity * layer.unit_cost for layer in self._layers.get(sku, [])),
            start=Decimal(0),
        )
        return round_money(total)

    def average_cost(self, sku: str) -> Decimal:
        """Weighted average unit cost of the remaining units of ``sku``."""
        units = self.quantity(sku)
        if units == 0:
            raise ValidationError(f"no stock of {sku} to compute an average cost for")
        total = sum(
            (layer.quantity * layer.unit_cost for layer in self._layers[sku]),
            start=Decimal(0),
        )
        return round_money(total / units)

    def total_value(self) -> Decimal:
        """FIFO value of all stock held."""
        return round_money(sum((self.value(sku) for sku in self._layers), start=Decimal(0)))
