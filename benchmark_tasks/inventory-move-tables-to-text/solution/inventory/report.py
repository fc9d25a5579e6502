"""Text stock report: on-hand, reserved and available units, value and reorders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Mapping, Sequence

import inventory.pricing as pricing
from inventory.reorder import ReorderSuggestion

from .service import InventoryService
from inventory.text.tables import format_table, truncate

REPORT_TITLE = "Warehouse stock report"
NAME_COLUMN_WIDTH = 24
STOCK_HEADERS = ("SKU", "Name", "On hand", "Reserved", "Available", "Value")
REORDER_HEADERS = ("SKU", "On hand", "Reorder point", "Order qty")


def _today() -> date:
    """Return today's date (a seam for tests to patch)."""
    return date.today()


@dataclass(frozen=True)
class ReportSummary:
    """Headline figures for the stock report."""

    sku_count: int
    total_units: int
    reserved_units: int
    total_value: Decimal
    low_stock: tuple[str, ...]


def summarize(
    service: InventoryService,
    demand_history: Mapping[str, Sequence[int]] | None = None,
) -> ReportSummary:
    """Compute the headline figures for ``service``."""
    on_hand = service.on_hand()
    suggestions = service.reorder_suggestions(demand_history)
    return ReportSummary(
        sku_count=len(on_hand),
        total_units=sum(on_hand.values()),
        reserved_units=sum(service.reservations.reserved(sku) for sku in on_hand),
        total_value=service.inventory_value(),
        low_stock=tuple(s.sku for s in suggestions),
    )


def stock_rows(service: InventoryService) -> list[list[str]]:
    """One table row per catalogued product."""
    rows = []
    for product in service.products():
        on_hand = service.ledger.quantity(product.sku)
        reserved = service.reservations.reserved(product.sku)
        rows.append(
            [
                product.sku,
                truncate(product.name, NAME_COLUMN_WIDTH),
                str(on_hand),
                str(reserved),
                str(service.reservations.available(product.sku)),
                str(pricing.round_money(service.valuation.value(product.sku))),
            ]
        )
    return rows


def reorder_rows(suggestions: Sequence[ReorderSuggestion]) -> list[list[str]]:
    """One table row per reorder suggestion."""
    return [
        [s.sku, str(s.on_hand), str(s.reorder_point), str(s.order_quantity)]
        for s in suggestions
    ]


def render_report(
    service: InventoryService,
    demand_history: Mapping[str, Sequence[int]] | None = None,
    as_of: date | None = None,
) -> str:
    """Render the full plain-text stock report for ``service``."""
    as_of = as_of or _today()
    summary = summarize(service, demand_history)
    currency = service.settings.currency
    lines = [
        f"{REPORT_TITLE} - {as_of.isoformat()}",
        "",
        format_table(STOCK_HEADERS, stock_rows(service), align="llrrrr"),
        "",
        f"Products: {summary.sku_count}  Units: {summary.total_units}  "
        f"Reserved: {summary.reserved_units}",
        f"Total value: {summary.total_value} {currency}",
        "",
    ]
    suggestions = service.reorder_suggestions(demand_history)
    if suggestions:
        lines.append(f"Reorder needed ({len(suggestions)}):")
        lines.append(format_table(REORDER_HEADERS, reorder_rows(suggestions), align="lrrr"))
    else:
        lines.append("No reorders needed.")
    return "\n".join(lines) + "\n"
