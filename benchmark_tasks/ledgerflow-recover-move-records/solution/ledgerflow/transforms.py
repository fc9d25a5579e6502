"""Row-level transforms: rounding, currency conversion, date and text normalisation
and rule-based categorisation.

All transforms are pure: they take :class:`~ledgerflow.records.Transaction`
objects and return new ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from ledgerflow.errors import ExchangeRateError
from ledgerflow.core.records import DEFAULT_CURRENCY, UNCATEGORISED, Transaction

DECIMAL_PLACES = 2
ROUNDING = ROUND_HALF_UP
WEEKEND_DAYS = frozenset({5, 6})  # date.weekday(): Saturday, Sunday

_WHITESPACE = re.compile(r"\s+")


def round_money(amount: Decimal, places: int = DECIMAL_PLACES) -> Decimal:
    """Round ``amount`` to ``places`` decimal places using :data:`ROUNDING`."""
    return amount.quantize(Decimal(1).scaleb(-places), rounding=ROUNDING)


@dataclass(frozen=True)
class RateTable:
    """Exchange rates expressed as units of :attr:`base` per one unit of a currency.

    With ``base="EUR"`` and ``rates={"USD": Decimal("0.92")}`` one US dollar is
    worth 0.92 euro.  Conversions between two non-base currencies go through the
    base currency.
    """

    base: str = DEFAULT_CURRENCY
    rates: Mapping[str, Decimal] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for code, rate in self.rates.items():
            if rate <= 0:
                raise ExchangeRateError(f"exchange rate for {code} must be positive, got {rate}")

    def known(self) -> list[str]:
        """All currencies this table can convert, including the base."""
        return sorted(set(self.rates) | {self.base})

    def to_base(self, currency: str) -> Decimal:
        """Value of one unit of ``currency`` in the base currency."""
        if currency == self.base:
            return Decimal(1)
        try:
            return self.rates[currency]
        except KeyError:
            raise ExchangeRateError(
                f"no exchange rate for {currency!r}; known currencies: {', '.join(self.known())}"
            ) from None

    def rate(self, source: str, target: str) -> Decimal:
        """Units of ``target`` per one unit of ``source``."""
        return self.to_base(source) / self.to_base(target)

    def convert(self, amount: Decimal, source: str, target: str) -> Decimal:
        """Convert ``amount`` from ``source`` to ``target``, rounded to money precision."""
        if source == target:
            return amount
        return round_money(amount * self.rate(source, target))


def convert_currency(
    txn: Transaction, table: RateTable, target: str = DEFAULT_CURRENCY
) -> Transaction:
    """Return ``txn`` expressed in ``target`` currency."""
    if txn.currency == target:
        return txn
    amount = table.convert(txn.amount, txn.currency, target)
    return txn.with_changes(amount=amount, currency=target)


def convert_all(
    transactions: Iterable[Transaction], table: RateTable, target: str = DEFAULT_CURRENCY
) -> list[Transaction]:
    """Convert every transaction to ``target`` currency."""
    return [convert_currency(txn, table, target) for txn in transactions]


def next_business_day(day: date) -> date:
    """Return ``day`` itself if it is a weekday, otherwise the following Monday."""
    while day.weekday() in WEEKEND_DAYS:
        day += timedelta(days=1)
    return day


def normalise_booking_date(txn: Transaction) -> Transaction:
    """Move weekend bookings to the next business day, as banks settle them."""
    settled = next_business_day(txn.booked_on)
    if settled == txn.booked_on:
        return txn
    return txn.with_changes(booked_on=settled)


def normalise_description(text: str) -> str:
    """Collapse runs of whitespace and strip the ends of a description."""
    return _WHITESPACE.sub(" ", text).strip()


def clean_descriptions(transactions: Iterable[Transaction]) -> list[Transaction]:
    """Apply :func:`normalise_description` to every transaction."""
    cleaned: list[Transaction] = []
    for txn in transactions:
        description = normalise_description(txn.description)
        cleaned.append(txn if description == txn.description else txn.with_changes(description=description))
    return cleaned


@dataclass(frozen=True)
class CategoryRule:
    """Assign :attr:`category` to transactions whose description contains :attr:`pattern`.

    Matching is a case-insensitive substring test.
    """

    pattern: str
    category: str

    def __post_init__(self) -> None:
        if not self.pattern.strip():
            raise ValueError("category rule pattern must not be empty")
        if not self.category.strip():
            raise ValueError(f"category for pattern {self.pattern!r} must not be empty")

    def matches(self, description: str) -> bool:
        """True when the description contains the pattern, ignoring case."""
        return self.pattern.casefold() in description.casefold()


def categorise(
    txn: Transaction,
    rules: Sequence[CategoryRule],
    default: str = UNCATEGORISED,
    *,
    overwrite: bool = False,
) -> Transaction:
    """Categorise one transaction using the first matching rule.

    Transactions that already carry a category are left alone unless
    ``overwrite`` is true.
    """
    if txn.is_categorised and not overwrite:
        return txn
    for rule in rules:
        if rule.matches(txn.description):
            return txn.with_changes(category=rule.category)
    return txn.with_changes(category=default)


def categorise_all(
    transactions: Iterable[Transaction],
    rules: Sequence[CategoryRule],
    default: str = UNCATEGORISED,
    *,
    overwrite: bool = False,
) -> list[Transaction]:
    """Apply :func:`categorise` to every transaction."""
    return [categorise(txn, rules, default, overwrite=overwrite) for txn in transactions]
