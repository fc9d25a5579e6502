"""Validation rules for coerced transactions, with structured error reporting.

A *rule* is a callable taking one :class:`~ledgerflow.records.Transaction` and
returning an :class:`Issue` or ``None``.  :func:`validate` applies a sequence
of rules to every transaction and collects the results in a
:class:`ValidationReport`, which can render a human-readable summary or raise
:class:`~ledgerflow.errors.ValidationError`.

Public API of ledgerflow.validation:

- class Severity(): How serious an :class:`Issue` is.  Only errors reject a transaction.
- class Issue(txn_id: str, rule: str, message: str, severity: Severity): A single problem found with one transaction.
- class ValidationReport(issues: list[Issue], checked: int): All issues found while validating a batch of transactions.
- def non_zero_amount(txn: Transaction) -> Issue | None: Reject transactions whose amount is exactly zero.
- def currency_code(txn: Transaction) -> Issue | None: Reject currency codes that are not three upper-case letters.
- def description_present(txn: Transaction) -> Issue | None: Warn about transactions without a description.
- def max_abs_amount(limit: Decimal) -> Rule: Build a rule rejecting amounts whose absolute value exceeds ``limit``.
- def allowed_currencies(codes: Iterable[str]) -> Rule: Build a rule rejecting currencies outside ``codes``.
- def date_between(start: date | None=None, end: date | None=None) -> Rule: Build a rule rejecting bookings outside the inclusive range ``start``..``end``.
- def duplicate_ids(transactions: Sequence[Transaction]) -> list[Issue]: Report every id that is used by more than one transaction.
- def validate(transactions: Iterable[Transaction], rules: Sequence[Rule]=DEFAULT_RULES, *, check_duplicate_ids: bool=True) -> ValidationReport: Apply ``rules`` to every transaction and collect the issues found.
- def partition(transactions: Iterable[Transaction], report: ValidationReport) -> tuple[list[Transaction], list[Transaction]]: Split transactions into ``(valid, rejected)`` according to ``report``.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

import ledgerflow.schema
from ledgerflow.errors import ValidationError
from ledgerflow.records import Transaction

MAX_REPORTED_ISSUES = 20


class Severity(enum.Enum):
    """How serious an :class:`Issue` is.  Only errors reject a transaction."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    """A single problem found with one transaction."""

    txn_id: str
    rule: str
    message: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        return f"[{self.severity.value}] {self.txn_id}: {self.message} ({self.rule})"


Rule = Callable[[Transaction], "Issue | None"]


@dataclass
class ValidationReport:
    """All issues found while validating a batch of transactions."""

    issues: list[Issue] = field(default_factory=list)
    checked: int = 0

    @property
    def errors(self) -> list[Issue]:
        """Issues with :attr:`Severity.ERROR`."""
        return [issue for issue in self.issues if issue.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Issue]:
        """Issues with :attr:`Severity.WARNING`."""
        return [issue for issue in self.issues if issue.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        """True when no errors were found (warnings are allowed)."""
        return not self.errors

    def failed_ids(self) -> set[str]:
        """Ids of transactions that have at least one error."""
        return {issue.txn_id for issue in self.errors}

    def summary(self, limit: int = MAX_REPORTED_ISSUES) -> str:
        """Render a multi-line summary listing at most ``limit`` issues."""
        if not self.issues:
            return f"{self.checked} transaction(s) checked, no issues"
        lines = [
            f"{self.checked} transaction(s) checked: "
            f"{len(self.errors)} error(s), {len(self.warnings)} warning(s)"
        ]
        lines.extend(f"  {issue}" for issue in self.issues[:limit])
        hidden = len(self.issues) - limit
        if hidden > 0:
            lines.append(f"  ... and {hidden} more")
        return "\n".join(lines)

    def raise_for_errors(self) -> None:
        """Raise :class:`ValidationError` if the report contains errors."""
        if self.errors:
            raise ValidationError(self.summary(), issues=self.errors)


def non_zero_amount(txn: Transaction) -> Issue | None:
    """Reject transactions whose amount is exactly zero."""
    if txn.amount == 0:
        return Issue(txn.txn_id, "non_zero_amount", "amount is zero")
    return None


def currency_code(txn: Transaction) -> Issue | None:
    """Reject currency codes that are not three upper-case letters."""
    if not ledgerflow.schema.is_currency_code(txn.currency):
        return Issue(txn.txn_id, "currency_code", f"invalid currency code {txn.currency!r}")
    return None


def description_present(txn: Transaction) -> Issue | None:
    """Warn about transactions without a description."""
    if not txn.description.strip():
        return Issue(txn.txn_id, "description_present", "description is empty", Severity.WARNING)
    return None


def max_abs_amount(limit: Decimal) -> Rule:
    """Build a rule rejecting amounts whose absolute value exceeds ``limit``."""
    if limit <= 0:
        raise ValueError(f"amount limit must be positive, got {limit}")

    def rule(txn: Transaction) -> Issue | None:
        if abs(txn.amount) > limit:
            return Issue(
                txn.txn_id,
                "max_abs_amount",
                f"amount {txn.amount} exceeds the limit of {limit}",
            )
        return None

    return rule


def allowed_currencies(codes: Iterable[str]) -> Rule:
    """Build a rule rejecting currencies outside ``codes``."""
    allowed = frozenset(codes)
    listing = ", ".join(sorted(allowed))

    def rule(txn: Transaction) -> Issue | None:
        if txn.currency not in allowed:
            return Issue(
                txn.txn_id,
                "allowed_currencies",
                f"currency {txn.currency} is not supported (allowed: {listing})",
            )
        return None

    return rule


def date_between(start: date | None = None, end: date | None = None) -> Rule:
    """Build a rule rejecting bookings outside the inclusive range ``start``..``end``."""
    if start is not None and end is not None and start > end:
        raise ValueError(f"start date {start} is after end date {end}")

    def rule(txn: Transaction) -> Issue | None:
        if start is not None and txn.booked_on < start:
            return Issue(txn.txn_id, "date_between", f"booked on {txn.booked_on}, before {start}")
        if end is not None and txn.booked_on > end:
            return Issue(txn.txn_id, "date_between", f"booked on {txn.booked_on}, after {end}")
        return None

    return rule


DEFAULT_RULES: tuple[Rule, ...] = (non_zero_amount, currency_code, description_present)


def duplicate_ids(transactions: Sequence[Transaction]) -> list[Issue]:
    """Report every id that is used by more than one transaction."""
    counts = Counter(txn.txn_id for txn in transactions)
    return [
        Issue(txn_id, "duplicate_ids", f"id appears {count} times")
        for txn_id, count in counts.items()
        if count > 1
    ]


def validate(
    transactions: Iterable[Transaction],
    rules: Sequence[Rule] = DEFAULT_RULES,
    *,
    check_duplicate_ids: bool = True,
) -> ValidationReport:
    """Apply ``rules`` to every transaction and collect the issues found."""
    batch = list(transactions)
    report = ValidationReport(checked=len(batch))
    for txn in batch:
        for rule in rules:
            issue = rule(txn)
            if issue is not None:
                report.issues.append(issue)
    if check_duplicate_ids:
        report.issues.extend(duplicate_ids(batch))
    return report


def partition(
    transactions: Iterable[Transaction], report: ValidationReport
) -> tuple[list[Transaction], list[Transaction]]:
    """Split transactions into ``(valid, rejected)`` according to ``report``."""
    failed = report.failed_ids()
    valid: list[Transaction] = []
    rejected: list[Transaction] = []
    for txn in transactions:
        (rejected if txn.txn_id in failed else valid).append(txn)
    return valid, rejected
