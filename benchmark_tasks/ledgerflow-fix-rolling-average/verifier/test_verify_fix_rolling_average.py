from decimal import Decimal

import pytest

from ledgerflow.aggregate import rolling_average


def values(*texts):
    return [Decimal(text) for text in texts]


def test_one_average_per_full_window():
    assert rolling_average(values("1", "2", "3"), 2) == [Decimal("1.50"), Decimal("2.50")]


def test_window_as_long_as_input_gives_one_average():
    assert rolling_average(values("2", "4", "9"), 3) == [Decimal("5.00")]


def test_window_of_one_returns_every_value_rounded():
    assert rolling_average(values("1.005", "2"), 1) == [Decimal("1.01"), Decimal("2.00")]


def test_fewer_values_than_window():
    assert rolling_average(values("1"), 2) == []
    assert rolling_average([], 1) == []


def test_invalid_window_is_still_rejected():
    with pytest.raises(ValueError):
        rolling_average(values("1"), 0)
