"""Detection and removal of duplicate transactions.

Bank exports frequently repeat rows when date ranges overlap.  Exact
duplicates are dropped; *near* duplicates (same amount and account booked a
few days apart) are only reported, because they are often legitimate.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from ledgerflow.core.records import Transaction

DEFAULT_WINDOW_DAYS = 3

KeyFunc = Callable[[Transaction], Hashable]


def content_key(txn: Transaction) -> Hashable:
    """Identity of a transaction by its content (id included, category ignored)."""
    return (
        txn.txn_id,
        txn.booked_on,
        txn.amount,
        txn.currency,
        txn.description.casefold(),
        txn.account,
    )


def id_key(txn: Transaction) -> Hashable:
    """Identity of a transaction by id alone."""
    return txn.txn_id


@dataclass
class DedupeResult:
    """Outcome of :func:`deduplicate`."""

    kept: list[Transaction] = field(default_factory=list)
    dropped: list[Transaction] = field(default_factory=list)
    suspects: list[tuple[Transaction, Transaction]] = field(default_factory=list)

    @property
    def removed_count(self) -> int:
        """Number of transactions dropped as exact duplicates."""
        return len(self.dropped)


def drop_duplicates(
    transactions: Iterable[Transaction], key: KeyFunc = content_key
) -> tuple[list[Transaction], list[Transaction]]:
    """Return ``(kept, dropped)``; the first occurrence of each key is kept, order preserved."""
    seen: set[Hashable] = set()
    kept: list[Transaction] = []
    dropped: list[Transaction] = []
    for txn in transactions:
        marker = key(txn)
        if marker in seen:
            dropped.append(txn)
        else:
            seen.add(marker)
            kept.append(txn)
    return kept, dropped


def find_near_duplicates(
    transactions: Iterable[Transaction], window_days: int = DEFAULT_WINDOW_DAYS
) -> list[tuple[Transaction, Transaction]]:
    """Pairs with equal amount, currency and account booked at most ``window_days`` apart.

    Each pair is ordered chronologically.  The scan sorts the input so that
    candidates are adjacent, then walks forward from each transaction until
    the group or the window ends.
    """
    if window_days < 0:
        raise ValueError(f"window_days must not be negative, got {window_days}")
    ordered = sorted(
        transactions,
        key=lambda t: (t.currency, t.amount, t.account, t.booked_on, t.txn_id),
    )
    pairs: list[tuple[Transaction, Transaction]] = []
    for i in range(len(ordered)):
        first = ordered[i]
        j = i + 1
        while j < len(ordered):
            second = ordered[j]
            same_group = (second.currency, second.amount, second.account) == (
                first.currency,
                first.amount,
                first.account,
            )
            if not same_group or (second.booked_on - first.booked_on).days > window_days:
                break
            pairs.append((first, second))
            j += 1
    return pairs


def deduplicate(
    transactions: Iterable[Transaction],
    *,
    key: KeyFunc = content_key,
    window_days: int = DEFAULT_WINDOW_DAYS,
) -> DedupeResult:
    """Drop exact duplicates and flag near duplicates among the survivors."""
    kept, dropped = drop_duplicates(transactions, key)
    suspects = find_near_duplicates(kept, window_days)
    return DedupeResult(kept=kept, dropped=dropped, suspects=suspects)
