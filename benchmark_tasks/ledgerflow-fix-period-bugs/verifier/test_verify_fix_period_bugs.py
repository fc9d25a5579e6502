from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.aggregate import totals_by_month
from ledgerflow.periods import Month, month_range
from ledgerflow.records import Transaction


def test_month_range_includes_end_month():
    months = month_range(Month(2023, 11), Month(2024, 2))
    assert [str(m) for m in months] == ["2023-11", "2023-12", "2024-01", "2024-02"]


def test_single_month_range():
    assert month_range(Month(2024, 5), Month(2024, 5)) == [Month(2024, 5)]


def test_reversed_range_still_rejected():
    with pytest.raises(ValueError):
        month_range(Month(2024, 2), Month(2024, 1))


@pytest.mark.parametrize(
    ("year", "month", "day"),
    [(2024, 1, 31), (2024, 2, 29), (2023, 2, 28), (2024, 4, 30), (2024, 9, 30), (2024, 12, 31)],
)
def test_last_day(year, month, day):
    assert Month(year, month).last_day == date(year, month, day)


def test_totals_by_month_keeps_last_month():
    batch = [
        Transaction("A", date(2024, 1, 3), Decimal("-5")),
        Transaction("B", date(2024, 3, 30), Decimal("-7")),
    ]
    assert list(totals_by_month(batch)) == ["2024-01", "2024-02", "2024-03"]
    assert list(totals_by_month(batch[:1])) == ["2024-01"]
