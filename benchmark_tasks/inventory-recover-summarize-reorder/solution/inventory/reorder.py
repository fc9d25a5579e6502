"""Reorder planning: demand averages, reorder points and purchase suggestions.

A SKU needs reordering when its on-hand quantity is at or below its reorder
point. The reorder point is either given by an explicit
:class:`~inventory.models.ReorderRule` or derived from recent demand and the
supplier lead time, but never lower than the configured threshold.

Public API of inventory.reorder:

- class ReorderSuggestion(sku: str, on_hand: int, reorder_point: int, order_quantity: int): A recommendation to order ``order_quantity`` units of ``sku``.
- def moving_average(values: Sequence[float], window: int) -> list[float]: Simple moving average of ``values`` over ``window`` consecutive items.
- def average_daily_demand(history: Sequence[int], window: int=DEMAND_WINDOW_DAYS) -> float: Average units per day over the most recent ``window`` days of ``history``.
- def days_until_stockout(on_hand: int, forecast: Sequence[int]) -> int | None: Return the 1-based day on which stock runs out under ``forecast``.
- def reorder_point(avg_daily_demand: float, lead_time_days: int, safety_stock: int=0) -> int: Units needed to cover demand during the lead time plus safety stock.
- def suggest_reorders(products: Iterable[Product], on_hand: Mapping[str, int], demand_history: Mapping[str, Sequence[int]] | None=None, rules: Mapping[str, ReorderRule] | None=None, default_threshold: int=DEFAULT_REORDER_THRESHOLD, lead_time_days: int=DEFAULT_LEAD_TIME_DAYS) -> list[ReorderSuggestion]: Return reorder suggestions for every product that needs restocking.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from inventory.config import DEFAULT_REORDER_THRESHOLD
from inventory.errors import ValidationError
from inventory.models import Product, ReorderRule

DEFAULT_LEAD_TIME_DAYS = 7
DEMAND_WINDOW_DAYS = 14
TARGET_COVER_MULTIPLIER = 2


@dataclass(frozen=True)
class ReorderSuggestion:
    """A recommendation to order ``order_quantity`` units of ``sku``."""

    sku: str
    on_hand: int
    reorder_point: int
    order_quantity: int


def moving_average(values: Sequence[float], window: int) -> list[float]:
    """Simple moving average of ``values`` over ``window`` consecutive items.

    Returns ``len(values) - window + 1`` averages, or an empty list when
    there are fewer values than the window size.
    """
    if window <= 0:
        raise ValidationError(f"window must be a positive number of days, got {window}")
    averages: list[float] = []
    for end in range(window, len(values) + 1):
        chunk = values[end - window:end]
        averages.append(sum(chunk) / window)
    return averages


def average_daily_demand(history: Sequence[int], window: int = DEMAND_WINDOW_DAYS) -> float:
    """Average units per day over the most recent ``window`` days of ``history``.

    ``history`` holds one demand figure per day, oldest first. If fewer than
    ``window`` days are known, all of them are used.
    """
    if window <= 0:
        raise ValidationError(f"window must be a positive number of days, got {window}")
    if not history:
        return 0.0
    recent = history[-window:]
    return sum(recent) / len(recent)


def days_until_stockout(on_hand: int, forecast: Sequence[int]) -> int | None:
    """Return the 1-based day on which stock runs out under ``forecast``.

    ``forecast[0]`` is tomorrow's expected demand. Returns ``0`` if there is
    no stock now and ``None`` if stock lasts beyond the forecast horizon.
    """
    if on_hand <= 0:
        return 0
    remaining = on_hand
    for day in range(len(forecast)):
        remaining -= forecast[day]
        if remaining <= 0:
            return day + 1
    return None


def reorder_point(avg_daily_demand: float, lead_time_days: int, safety_stock: int = 0) -> int:
    """Units needed to cover demand during the lead time plus safety stock."""
    if lead_time_days < 0:
        raise ValidationError(f"lead_time_days cannot be negative, got {lead_time_days}")
    if safety_stock < 0:
        raise ValidationError(f"safety_stock cannot be negative, got {safety_stock}")
    return math.ceil(avg_daily_demand * lead_time_days) + safety_stock


def suggest_reorders(
    products: Iterable[Product],
    on_hand: Mapping[str, int],
    demand_history: Mapping[str, Sequence[int]] | None = None,
    rules: Mapping[str, ReorderRule] | None = None,
    default_threshold: int = DEFAULT_REORDER_THRESHOLD,
    lead_time_days: int = DEFAULT_LEAD_TIME_DAYS,
) -> list[ReorderSuggestion]:
    """Return reorder suggestions for every product that needs restocking.

    Suggestions are sorted by SKU. For a product with an explicit rule the
    rule's threshold and target level are used; otherwise the reorder point
    is the larger of the product's threshold (or ``default_threshold``) and
    the lead-time demand, and stock is topped up to
    :data:`TARGET_COVER_MULTIPLIER` times the reorder point.
    """
    demand_history = demand_history or {}
    rules = rules or {}
    suggestions: list[ReorderSuggestion] = []
    for product in sorted(products, key=lambda p: p.sku):
        stock = on_hand.get(product.sku, 0)
        rule = rules.get(product.sku)
        if rule is not None:
            point, target = rule.threshold, rule.target_level
        else:
            threshold = (
                product.reorder_threshold
                if product.reorder_threshold is not None
                else default_threshold
            )
            demand = average_daily_demand(demand_history.get(product.sku, ()))
            point = max(threshold, reorder_point(demand, lead_time_days))
            target = point * TARGET_COVER_MULTIPLIER
        if stock <= point and target > stock:
            suggestions.append(ReorderSuggestion(product.sku, stock, point, target - stock))
    return suggestions
