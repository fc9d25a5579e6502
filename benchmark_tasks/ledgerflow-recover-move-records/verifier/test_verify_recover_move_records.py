import importlib.util
from datetime import date
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.config import load_config
from ledgerflow.pipeline import run_file

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def test_new_location():
    from ledgerflow.core.records import DEFAULT_CURRENCY, Transaction, sorted_by_date

    txn = Transaction("T1", date(2024, 1, 1), Decimal("5"))
    assert txn.currency == DEFAULT_CURRENCY == "EUR"
    assert sorted_by_date([txn]) == [txn]
    assert ledgerflow.Transaction is Transaction
    assert ledgerflow.DEFAULT_CURRENCY == "EUR"


def test_old_module_is_gone():
    assert importlib.util.find_spec('ledgerflow.records') is None
    assert not (ROOT / 'ledgerflow/records.py').exists()


def test_pipeline_produces_core_transactions():
    from ledgerflow.core.records import Transaction

    result = run_file(ROOT / "data" / "transactions.csv", load_config(ROOT / "ledgerflow.json"))
    assert len(result.transactions) == 28
    assert all(isinstance(txn, Transaction) for txn in result.transactions)
