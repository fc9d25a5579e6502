from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.core.records import (
    DEFAULT_CURRENCY,
    UNCATEGORISED,
    Transaction,
    currencies_of,
    sorted_by_date,
)


def test_defaults():
    txn = Transaction("T1", date(2024, 1, 1), Decimal("5"))
    assert txn.currency == DEFAULT_CURRENCY == "EUR"
    assert txn.category == UNCATEGORISED
    assert not txn.is_categorised


def test_debit_and_credit_flags(make_txn):
    assert make_txn(amount="-1").is_debit
    assert not make_txn(amount="-1").is_credit
    assert make_txn(amount="1").is_credit
    zero = make_txn(amount="0")
    assert not zero.is_debit and not zero.is_credit


def test_with_changes_returns_copy(make_txn):
    txn = make_txn(category="food")
    changed = txn.with_changes(category="rent")
    assert changed.category == "rent"
    assert txn.category == "food"
    with pytest.raises(AttributeError):
        txn.category = "x"  # frozen


def test_to_row_formats_plain_decimal(make_txn):
    row = make_txn(amount=Decimal("1E+2"), description="x", account="card").to_row()
    assert row == {
        "id": "T1",
        "date": "2024-01-15",
        "amount": "100",
        "currency": "EUR",
        "description": "x",
        "category": UNCATEGORISED,
        "account": "card",
    }


def test_sorted_by_date_breaks_ties_by_id(make_txn):
    a = make_txn("B", "2024-01-02")
    b = make_txn("A", "2024-01-02")
    c = make_txn("C", "2024-01-01")
    assert [t.txn_id for t in sorted_by_date([a, b, c])] == ["C", "A", "B"]


def test_currencies_of(make_txn):
    assert currencies_of([make_txn(currency="EUR"), make_txn(currency="USD")]) == {"EUR", "USD"}
    assert currencies_of([]) == set()
