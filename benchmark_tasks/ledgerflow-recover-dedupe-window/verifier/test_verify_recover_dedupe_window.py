from datetime import date
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.config import LedgerConfig, parse_config
from ledgerflow.dedupe import deduplicate, find_near_duplicates
from ledgerflow.pipeline import run_file
from ledgerflow.records import Transaction

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def on(txn_id, day):
    return Transaction(txn_id, date.fromisoformat(day), Decimal("-12.99"), account="card")


def test_default_window_is_three_days():
    a, b, c = on("A", "2024-01-01"), on("B", "2024-01-04"), on("C", "2024-01-05")
    assert find_near_duplicates([a, b]) == [(a, b)]
    assert find_near_duplicates([a, c]) == []
    assert deduplicate([a, c]).suspects == []


def test_default_configuration():
    assert LedgerConfig().dedupe_window_days == 3
    assert parse_config({}).dedupe_window_days == 3


def test_subscriptions_are_not_flagged_without_a_config():
    result = run_file(ROOT / "data" / "transactions.csv")
    pairs = [(a.txn_id, b.txn_id) for a, b in result.context.dedupe_result.suspects]
    assert pairs == [("T010", "T011")]
