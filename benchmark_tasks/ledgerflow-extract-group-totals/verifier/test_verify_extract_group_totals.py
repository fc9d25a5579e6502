from datetime import date
from decimal import Decimal
from unittest import mock

import pytest

import ledgerflow.aggregate as aggregate
from ledgerflow.errors import LedgerError
from ledgerflow.records import Transaction

BATCH = [
    Transaction("A", date(2024, 3, 2), Decimal("-20"), category="groceries", account="card"),
    Transaction("B", date(2024, 1, 5), Decimal("1500"), category="income", account="checking"),
    Transaction("C", date(2024, 3, 9), Decimal("-30.50"), category="groceries", account="card"),
    Transaction("D", date(2024, 1, 20), Decimal("-700"), category="housing", account="checking"),
]


def test_group_totals_by_account_in_first_seen_order():
    groups = aggregate.group_totals(BATCH, lambda txn: txn.account)
    assert list(groups) == ["card", "checking"]
    assert isinstance(groups["card"], aggregate.Totals)
    assert (groups["card"].count, groups["card"].spending) == (2, Decimal("50.50"))
    assert groups["checking"].net == Decimal("800")


def test_group_totals_accepts_any_iterable_and_key():
    groups = aggregate.group_totals(iter(BATCH), lambda txn: txn.amount > 0)
    assert list(groups) == [False, True]
    assert groups[True].income == Decimal("1500")
    assert aggregate.group_totals([], lambda txn: txn.account) == {}


def test_group_totals_rejects_mixed_currencies():
    mixed = BATCH + [Transaction("E", date(2024, 2, 1), Decimal("-1"), currency="USD")]
    with pytest.raises(LedgerError):
        aggregate.group_totals(mixed, lambda txn: txn.account)


def test_results_are_unchanged():
    months = aggregate.totals_by_month(BATCH)
    assert list(months) == ["2024-01", "2024-02", "2024-03"]
    assert months["2024-01"].net == Decimal("800")
    assert months["2024-02"].count == 0
    assert list(aggregate.totals_by_month(BATCH, fill_gaps=False)) == ["2024-01", "2024-03"]
    assert aggregate.totals_by_month([]) == {}
    categories = aggregate.totals_by_category(BATCH)
    assert list(categories) == ["groceries", "housing", "income"]
    assert categories["groceries"].spending == Decimal("50.50")
    with pytest.raises(LedgerError):
        aggregate.totals_by_category(BATCH + [Transaction("E", date(2024, 2, 1), Decimal("-1"), currency="USD")])


@pytest.mark.parametrize("name", ["totals_by_month", "totals_by_category"])
def test_aggregations_use_the_helper(name):
    with mock.patch.object(aggregate, "group_totals", wraps=aggregate.group_totals) as helper:
        getattr(aggregate, name)(BATCH)
    assert helper.called
