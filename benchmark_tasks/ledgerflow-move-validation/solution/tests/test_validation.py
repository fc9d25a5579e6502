from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.errors import ValidationError
from ledgerflow.checks.validation import (
    DEFAULT_RULES,
    Issue,
    Severity,
    ValidationReport,
    allowed_currencies,
    currency_code,
    date_between,
    description_present,
    duplicate_ids,
    max_abs_amount,
    non_zero_amount,
    partition,
    validate,
)


def test_single_rules(make_txn):
    assert non_zero_amount(make_txn(amount="0")).rule == "non_zero_amount"
    assert non_zero_amount(make_txn(amount="1")) is None
    assert currency_code(make_txn(currency="eur")) is not None
    assert currency_code(make_txn(currency="EUR")) is None
    warning = description_present(make_txn(description="  "))
    assert warning.severity is Severity.WARNING


def test_max_abs_amount(make_txn):
    rule = max_abs_amount(Decimal("100"))
    assert rule(make_txn(amount="-100")) is None
    issue = rule(make_txn(amount="-100.01"))
    assert issue.message == "amount -100.01 exceeds the limit of 100"
    with pytest.raises(ValueError, match="must be positive"):
        max_abs_amount(Decimal("0"))


def test_allowed_currencies_message(make_txn):
    rule = allowed_currencies(["USD", "EUR"])
    assert rule(make_txn(currency="USD")) is None
    assert rule(make_txn(currency="JPY")).message == "currency JPY is not supported (allowed: EUR, USD)"


def test_date_between_is_inclusive(make_txn):
    rule = date_between(date(2024, 1, 1), date(2024, 1, 31))
    assert rule(make_txn(booked_on="2024-01-01")) is None
    assert rule(make_txn(booked_on="2024-01-31")) is None
    assert "before 2024-01-01" in rule(make_txn(booked_on="2023-12-31")).message
    assert "after 2024-01-31" in rule(make_txn(booked_on="2024-02-01")).message
    with pytest.raises(ValueError):
        date_between(date(2024, 2, 1), date(2024, 1, 1))


def test_duplicate_ids(make_txn):
    issues = duplicate_ids([make_txn("A"), make_txn("B"), make_txn("A"), make_txn("A")])
    assert issues == [Issue("A", "duplicate_ids", "id appears 3 times")]


def test_validate_collects_errors_and_warnings(make_txn):
    txns = [
        make_txn("T1", amount="0", description="zero"),
        make_txn("T2", amount="5", description=""),
        make_txn("T3", amount="5", description="fine"),
    ]
    report = validate(txns)
    assert report.checked == 3
    assert [i.txn_id for i in report.errors] == ["T1"]
    assert [i.txn_id for i in report.warnings] == ["T2"]
    assert not report.ok
    assert report.failed_ids() == {"T1"}


def test_validate_can_skip_duplicate_check(make_txn):
    txns = [make_txn("A", description="x"), make_txn("A", description="x")]
    assert not validate(txns).ok
    assert validate(txns, check_duplicate_ids=False).ok


def test_partition(make_txn):
    txns = [make_txn("T1", amount="0"), make_txn("T2", description="ok")]
    valid, rejected = partition(txns, validate(txns, DEFAULT_RULES))
    assert [t.txn_id for t in valid] == ["T2"]
    assert [t.txn_id for t in rejected] == ["T1"]


def test_summary_truncates():
    report = ValidationReport(
        issues=[Issue(f"T{i}", "r", "bad") for i in range(5)],
        checked=5,
    )
    lines = report.summary(limit=2).splitlines()
    assert lines[0] == "5 transaction(s) checked: 5 error(s), 0 warning(s)"
    assert lines[1] == "  [error] T0: bad (r)"
    assert len(lines) == 4
    assert lines[-1] == "  ... and 3 more"


def test_summary_without_issues():
    assert ValidationReport(checked=4).summary() == "4 transaction(s) checked, no issues"


def test_raise_for_errors():
    ValidationReport(issues=[Issue("T1", "r", "meh", Severity.WARNING)]).raise_for_errors()
    report = ValidationReport(issues=[Issue("T1", "r", "bad")], checked=1)
    with pytest.raises(ValidationError) as info:
        report.raise_for_errors()
    assert info.value.issues == report.errors
    assert "T1: bad" in str(info.value)
