"""Core record types shared by every stage of the ledgerflow pipeline.

A :class:`Transaction` is immutable; transforms return modified copies via
:meth:`Transaction.with_changes` rather than mutating records in place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Any

DEFAULT_CURRENCY = "EUR"
UNCATEGORISED = "uncategorised"


@dataclass(frozen=True)
class Transaction:
    """A single booked transaction.

    Negative amounts are debits (money leaving the account), positive amounts
    are credits.
    """

    txn_id: str
    booked_on: date
    amount: Decimal
    currency: str = DEFAULT_CURRENCY
    description: str = ""
    category: str = UNCATEGORISED
    account: str = ""

    @property
    def is_debit(self) -> bool:
        """True when money leaves the account."""
        return self.amount < 0

    @property
    def is_credit(self) -> bool:
        """True when money enters the account."""
        return self.amount > 0

    @property
    def is_categorised(self) -> bool:
        """True when the transaction carries a real (non-default) category."""
        return bool(self.category) and self.category != UNCATEGORISED

    def with_changes(self, **changes: Any) -> Transaction:
        """Return a copy of the transaction with the given fields replaced."""
        return replace(self, **changes)

    def to_row(self) -> dict[str, str]:
        """Serialise the transaction to a flat mapping of CSV column -> text."""
        return {
            "id": self.txn_id,
            "date": self.booked_on.isoformat(),
            "amount": format(self.amount, "f"),
            "currency": self.currency,
            "description": self.description,
            "category": self.category,
            "account": self.account,
        }


def sort_key(txn: Transaction) -> tuple[date, str]:
    """Chronological sort key; the id breaks ties deterministically."""
    return (txn.booked_on, txn.txn_id)


def sorted_by_date(transactions: Iterable[Transaction]) -> list[Transaction]:
    """Return the transactions ordered by booking date, then id."""
    return sorted(transactions, key=sort_key)


def currencies_of(transactions: Iterable[Transaction]) -> set[str]:
    """Return the set of currency codes used by ``transactions``."""
    return {txn.currency for txn in transactions}
