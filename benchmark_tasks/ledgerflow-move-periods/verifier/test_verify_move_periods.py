import importlib.util
from datetime import date
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.aggregate import totals_by_month
from ledgerflow.records import Transaction

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def test_new_location():
    from ledgerflow.reporting.periods import Month, month_key, month_range, months_between

    assert [str(m) for m in month_range(Month(2023, 12), Month(2024, 2))] == ["2023-12", "2024-01", "2024-02"]
    assert months_between(Month(2024, 1), Month(2024, 4)) == 3
    assert month_key(date(2024, 7, 4)) == "2024-07"


def test_old_module_is_gone():
    assert importlib.util.find_spec('ledgerflow.periods') is None
    assert not (ROOT / 'ledgerflow/periods.py').exists()


def test_aggregation_still_fills_gaps():
    batch = [Transaction("A", date(2024, 1, 3), Decimal("-5")), Transaction("B", date(2024, 3, 1), Decimal("9"))]
    assert list(totals_by_month(batch)) == ["2024-01", "2024-02", "2024-03"]
