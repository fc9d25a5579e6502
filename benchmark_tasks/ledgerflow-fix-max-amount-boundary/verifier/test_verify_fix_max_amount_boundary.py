from datetime import date
from decimal import Decimal

from ledgerflow.config import LedgerConfig
from ledgerflow.pipeline import rules_for_config
from ledgerflow.records import Transaction
from ledgerflow.validation import max_abs_amount, validate


def txn(amount, txn_id="T1"):
    return Transaction(txn_id, date(2024, 1, 15), Decimal(amount), description="Transfer")


def test_amount_equal_to_limit_is_accepted():
    rule = max_abs_amount(Decimal("5000"))
    assert rule(txn("-5000.00")) is None
    assert rule(txn("5000")) is None


def test_amount_above_limit_is_rejected():
    issue = max_abs_amount(Decimal("5000"))(txn("-5000.01"))
    assert issue is not None
    assert issue.rule == "max_abs_amount"


def test_configured_limit_in_pipeline_rules():
    config = LedgerConfig(max_amount=Decimal("100"))
    report = validate([txn("-100", "A"), txn("100.01", "B")], rules_for_config(config))
    assert report.failed_ids() == {"B"}
