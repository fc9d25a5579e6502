"""Aggregation of transactions into monthly and per-category totals.

Aggregations require all transactions to share one currency; run the
currency-conversion transform first when the input is mixed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from .errors import LedgerError
from .periods import Month, month_range
from .records import Transaction, currencies_of, sorted_by_date
from .transforms import round_money

ZERO = Decimal("0")

K = TypeVar("K", bound=Hashable)


@dataclass
class Totals:
    """Running totals for a group of transactions.

    :attr:`spending` is stored as a positive number.
    """

    count: int = 0
    income: Decimal = ZERO
    spending: Decimal = ZERO

    def add(self, amount: Decimal) -> None:
        """Account for one transaction amount."""
        self.count += 1
        if amount >= 0:
            self.income += amount
        else:
            self.spending += -amount

    @property
    def net(self) -> Decimal:
        """Income minus spending."""
        return self.income - self.spending

    def as_dict(self) -> dict[str, int | str]:
        """JSON-friendly representation with amounts rounded to money precision."""
        return {
            "count": self.count,
            "income": str(round_money(self.income)),
            "spending": str(round_money(self.spending)),
            "net": str(round_money(self.net)),
        }


def require_single_currency(transactions: Iterable[Transaction]) -> str | None:
    """Return the single currency used, ``None`` for no input, or raise if mixed."""
    codes = currencies_of(transactions)
    if len(codes) > 1:
        raise LedgerError(
            f"cannot aggregate mixed currencies ({', '.join(sorted(codes))}); "
            "convert to a single currency first"
        )
    return next(iter(codes), None)


def overall_totals(transactions: Iterable[Transaction]) -> Totals:
    """Totals across all transactions."""
    totals = Totals()
    for txn in transactions:
        totals.add(txn.amount)
    return totals


def group_totals(transactions: Iterable[Transaction], key: Callable[[Transaction], K]) -> dict[K, Totals]:
    """Totals per ``key(txn)``, in the order the keys are first seen."""
    batch = list(transactions)
    require_single_currency(batch)
    groups: dict[K, Totals] = {}
    for txn in batch:
        groups.setdefault(key(txn), Totals()).add(txn.amount)
    return groups


def totals_by_month(
    transactions: Iterable[Transaction], *, fill_gaps: bool = True
) -> dict[str, Totals]:
    """Totals keyed by ``YYYY-MM``, in chronological order.

    With ``fill_gaps`` months without transactions between the first and last
    month appear with empty totals, which keeps charts and month-over-month
    comparisons honest.
    """
    buckets = group_totals(transactions, lambda txn: Month.from_date(txn.booked_on))
    if not buckets:
        return {}
    months = month_range(min(buckets), max(buckets)) if fill_gaps else sorted(buckets)
    return {str(month): buckets.get(month, Totals()) for month in months}


def totals_by_category(transactions: Iterable[Transaction]) -> dict[str, Totals]:
    """Totals keyed by category, sorted by category name."""
    return dict(sorted(group_totals(transactions, lambda txn: txn.category).items()))


def month_category_matrix(transactions: Iterable[Transaction]) -> dict[str, dict[str, Decimal]]:
    """Net amount per month and category: ``{"2024-01": {"groceries": Decimal(...)}}``."""
    batch = list(transactions)
    require_single_currency(batch)
    matrix: dict[str, dict[str, Decimal]] = {}
    for txn in sorted_by_date(batch):
        row = matrix.setdefault(str(Month.from_date(txn.booked_on)), {})
        row[txn.category] = row.get(txn.category, ZERO) + txn.amount
    return matrix


def running_balance(
    transactions: Iterable[Transaction], opening: Decimal = ZERO
) -> list[tuple[Transaction, Decimal]]:
    """Pair each transaction (chronologically) with the balance after it is booked."""
    balance = opening
    result: list[tuple[Transaction, Decimal]] = []
    for txn in sorted_by_date(transactions):
        balance += txn.amount
        result.append((txn, balance))
    return result


def rolling_average(values: Sequence[Decimal], window: int) -> list[Decimal]:
    """Averages of each run of ``window`` consecutive values.

    Returns ``len(values) - window + 1`` averages (none if there are fewer
    values than the window).
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    averages: list[Decimal] = []
    for end in range(window, len(values) + 1):
        chunk = values[end - window:end]
        averages.append(round_money(sum(chunk, ZERO) / window))
    return averages


def month_over_month(totals: Mapping[str, Totals]) -> list[tuple[str, Decimal]]:
    """Change in spending from each month to the next, keyed by the later month."""
    keys = list(totals)
    changes: list[tuple[str, Decimal]] = []
    for i in range(1, len(keys)):
        previous = totals[keys[i - 1]].spending
        current = totals[keys[i]].spending
        changes.append((keys[i], current - previous))
    return changes


def top_categories(transactions: Iterable[Transaction], n: int = 3) -> list[tuple[str, Decimal]]:
    """The ``n`` categories with the highest spending, largest first (ties by name)."""
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    by_category = totals_by_category(transactions)
    ranked = sorted(
        ((name, totals.spending) for name, totals in by_category.items() if totals.spending > 0),
        key=lambda item: (-item[1], item[0]),
    )
    return ranked[:n]
