from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.records import Transaction
from ledgerflow.validation import date_between


def on(day):
    return Transaction("T1", date.fromisoformat(day), Decimal("-1"), description="x")


def test_bounds_are_inclusive():
    rule = date_between(date(2024, 1, 1), date(2024, 1, 31))
    assert rule(on("2024-01-01")) is None
    assert rule(on("2024-01-31")) is None
    assert rule(on("2024-01-15")) is None


def test_outside_is_rejected():
    rule = date_between(date(2024, 1, 1), date(2024, 1, 31))
    assert "before" in rule(on("2023-12-31")).message
    assert "after" in rule(on("2024-02-01")).message


def test_single_day_range():
    rule = date_between(date(2024, 3, 5), date(2024, 3, 5))
    assert rule(on("2024-03-05")) is None
    assert rule(on("2024-03-04")) is not None
    assert rule(on("2024-03-06")) is not None


def test_open_ranges():
    assert date_between(start=date(2024, 1, 1))(on("2024-01-01")) is None
    assert date_between(start=date(2024, 1, 1))(on("2023-12-31")) is not None
    assert date_between(end=date(2024, 1, 1))(on("2024-01-01")) is None
    assert date_between(end=date(2024, 1, 1))(on("2024-01-02")) is not None


def test_reversed_range_raises():
    with pytest.raises(ValueError):
        date_between(date(2024, 2, 1), date(2024, 1, 31))
