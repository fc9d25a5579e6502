import pytest

from inventory.config import DEFAULT_REORDER_THRESHOLD
from inventory.errors import ValidationError
from inventory.models import Product, ReorderRule
from inventory.reorder import (
    DEFAULT_LEAD_TIME_DAYS,
    ReorderSuggestion,
    average_daily_demand,
    days_until_stockout,
    moving_average,
    plan_reorders,
    reorder_point,
)

BOLT = Product("BOL-0001", "Hex bolt", "0.12", "0.35")
NUT = Product("NUT-0001", "Hex nut", "0.04", "0.12", reorder_threshold=100)


def test_moving_average_windows():
    assert moving_average([1, 2, 3, 4, 5], 2) == [1.5, 2.5, 3.5, 4.5]
    assert moving_average([2, 4, 6], 3) == [4.0]


def test_moving_average_short_input_and_window_one():
    assert moving_average([1, 2], 3) == []
    assert moving_average([3, 1, 2], 1) == [3.0, 1.0, 2.0]


def test_moving_average_rejects_zero_window():
    with pytest.raises(ValidationError, match="window must be a positive"):
        moving_average([1, 2], 0)


def test_average_daily_demand_uses_most_recent_window():
    history = [100] * 5 + [2] * 14
    assert average_daily_demand(history) == 2.0
    assert average_daily_demand(history, window=15) == pytest.approx((100 + 28) / 15)
    assert average_daily_demand([]) == 0.0


def test_days_until_stockout():
    assert days_until_stockout(10, [3, 3, 3, 3, 3]) == 4
    assert days_until_stockout(9, [3, 3, 3]) == 3
    assert days_until_stockout(10, [1, 1]) is None
    assert days_until_stockout(0, [1]) == 0


def test_reorder_point_rounds_up():
    assert reorder_point(2.1, 7) == 15
    assert reorder_point(2.0, 7, safety_stock=5) == 19
    with pytest.raises(ValidationError, match="lead_time_days cannot be negative"):
        reorder_point(1.0, -1)


def test_default_threshold_applies_without_history():
    suggestions = plan_reorders([BOLT], {"BOL-0001": DEFAULT_REORDER_THRESHOLD})
    assert suggestions == [
        ReorderSuggestion("BOL-0001", DEFAULT_REORDER_THRESHOLD, 10, 10),
    ]
    assert plan_reorders([BOLT], {"BOL-0001": DEFAULT_REORDER_THRESHOLD + 1}) == []


def test_product_threshold_overrides_default():
    suggestions = plan_reorders([NUT], {"NUT-0001": 80})
    assert suggestions == [ReorderSuggestion("NUT-0001", 80, 100, 120)]


def test_demand_raises_reorder_point_above_threshold():
    history = {"BOL-0001": [5] * 14}
    suggestions = plan_reorders([BOLT], {"BOL-0001": 30}, history)
    expected_point = 5 * DEFAULT_LEAD_TIME_DAYS
    assert suggestions == [ReorderSuggestion("BOL-0001", 30, expected_point, 2 * expected_point - 30)]


def test_explicit_rule_wins():
    rules = {"BOL-0001": ReorderRule("BOL-0001", threshold=40, target_level=200)}
    suggestions = plan_reorders([BOLT], {"BOL-0001": 40}, rules=rules)
    assert suggestions == [ReorderSuggestion("BOL-0001", 40, 40, 160)]


def test_suggestions_sorted_and_missing_stock_counts_as_zero():
    suggestions = plan_reorders([NUT, BOLT], {})
    assert [s.sku for s in suggestions] == ["BOL-0001", "NUT-0001"]
    assert suggestions[0].on_hand == 0


def test_zero_threshold_without_demand_needs_nothing():
    product = Product("WSH-0001", "Washer", "0.02", "0.06", reorder_threshold=0)
    assert plan_reorders([product], {}) == []
