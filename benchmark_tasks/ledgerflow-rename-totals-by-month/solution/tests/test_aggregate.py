from decimal import Decimal

import pytest

from ledgerflow.aggregate import (
    Totals,
    month_category_matrix,
    month_over_month,
    monthly_totals,
    overall_totals,
    require_single_currency,
    rolling_average,
    running_balance,
    top_categories,
    totals_by_category,
)
from ledgerflow.errors import LedgerError


@pytest.fixture
def batch(make_txn):
    return [
        make_txn("T1", "2024-01-02", "2000", category="income"),
        make_txn("T2", "2024-01-15", "-50.25", category="groceries"),
        make_txn("T3", "2024-03-01", "-800", category="housing"),
        make_txn("T4", "2024-03-20", "-20.75", category="groceries"),
    ]


def test_totals_add_and_as_dict():
    totals = Totals()
    for amount in ("10", "-2.5", "-0.005"):
        totals.add(Decimal(amount))
    assert totals.count == 3
    assert totals.income == Decimal("10")
    assert totals.spending == Decimal("2.505")
    assert totals.net == Decimal("7.495")
    assert totals.as_dict() == {"count": 3, "income": "10.00", "spending": "2.51", "net": "7.50"}


def test_require_single_currency(make_txn):
    assert require_single_currency([]) is None
    assert require_single_currency([make_txn(currency="USD")]) == "USD"
    with pytest.raises(LedgerError, match=r"mixed currencies \(EUR, USD\)"):
        require_single_currency([make_txn(currency="USD"), make_txn(currency="EUR")])


def test_monthly_totals_fills_gaps(batch):
    totals = monthly_totals(batch)
    assert list(totals) == ["2024-01", "2024-02", "2024-03"]
    assert totals["2024-01"].net == Decimal("1949.75")
    assert totals["2024-02"].count == 0
    assert totals["2024-03"].spending == Decimal("820.75")


def test_monthly_totals_without_gap_filling(batch):
    assert list(monthly_totals(batch, fill_gaps=False)) == ["2024-01", "2024-03"]
    assert monthly_totals([]) == {}


def test_totals_by_category_sorted(batch):
    totals = totals_by_category(batch)
    assert list(totals) == ["groceries", "housing", "income"]
    assert totals["groceries"].spending == Decimal("71.00")
    assert overall_totals(batch).net == Decimal("1129.00")


def test_month_category_matrix(batch):
    matrix = month_category_matrix(batch)
    assert matrix == {
        "2024-01": {"income": Decimal("2000"), "groceries": Decimal("-50.25")},
        "2024-03": {"housing": Decimal("-800"), "groceries": Decimal("-20.75")},
    }


def test_running_balance_is_chronological(batch):
    balances = running_balance(reversed(batch), opening=Decimal("100"))
    assert [t.txn_id for t, _ in balances] == ["T1", "T2", "T3", "T4"]
    assert [b for _, b in balances] == [
        Decimal("2100"),
        Decimal("2049.75"),
        Decimal("1249.75"),
        Decimal("1229.00"),
    ]


def test_rolling_average():
    values = [Decimal(v) for v in ("1", "2", "3", "4", "6")]
    assert rolling_average(values, 2) == [Decimal("1.50"), Decimal("2.50"), Decimal("3.50"), Decimal("5.00")]
    assert rolling_average(values, 5) == [Decimal("3.20")]
    assert rolling_average(values, 1) == [Decimal(f"{v}.00") for v in (1, 2, 3, 4, 6)]
    assert rolling_average(values, 6) == []
    with pytest.raises(ValueError, match="window must be at least 1, got 0"):
        rolling_average(values, 0)


def test_month_over_month(batch):
    changes = month_over_month(monthly_totals(batch))
    assert changes == [("2024-02", Decimal("-50.25")), ("2024-03", Decimal("820.75"))]
    assert month_over_month({}) == []


def test_top_categories(batch, make_txn):
    batch.append(make_txn("T5", "2024-03-21", "-71.00", category="eating out"))
    assert top_categories(batch, 2) == [("housing", Decimal("800")), ("eating out", Decimal("71.00"))]
    assert [name for name, _ in top_categories(batch, 10)] == ["housing", "eating out", "groceries"]
    assert top_categories(batch, 0) == []
    with pytest.raises(ValueError):
        top_categories(batch, -1)
