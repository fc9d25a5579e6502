import csv
import json
from datetime import datetime, timezone
from decimal import Decimal
from unittest import mock

import pytest

from ledgerflow.aggregate import Totals
from ledgerflow.errors import LedgerError
from ledgerflow.io import (
    read_transactions,
    render_month_table,
    summary_payload,
    write_summary_json,
    write_transactions_csv,
)
from ledgerflow.reporting.writers import OUTPUT_COLUMNS

FIXED_NOW = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)


@pytest.fixture
def batch(make_txn):
    return [
        make_txn("T2", "2024-02-10", "-30.00", category="groceries", description="REWE"),
        make_txn("T1", "2024-01-05", "1000.00", category="income", description="Salary"),
        make_txn("T3", "2024-02-11", "-5.50", category="transport", description="Bus"),
    ]


def test_write_csv_round_trip(tmp_path, batch):
    path = tmp_path / "out" / "clean.csv"
    assert write_transactions_csv(path, batch) == 3
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == OUTPUT_COLUMNS
    assert [r["id"] for r in rows] == ["T1", "T2", "T3"]
    assert read_transactions(path).transactions[1].amount == Decimal("-30.00")


def test_write_csv_with_delimiter(tmp_path, batch):
    path = tmp_path / "clean.csv"
    write_transactions_csv(path, batch, delimiter=";")
    assert path.read_text(encoding="utf-8").splitlines()[0] == ";".join(OUTPUT_COLUMNS)


def test_summary_payload(batch):
    with mock.patch("ledgerflow.reporting.writers._utcnow", return_value=FIXED_NOW):
        payload = summary_payload(batch, top_n=1)
    assert payload["generated_at"] == "2024-05-01T12:30:00+00:00"
    assert payload["currency"] == "EUR"
    assert payload["transactions"] == 3
    assert payload["totals"] == {"count": 3, "income": "1000.00", "spending": "35.50", "net": "964.50"}
    assert list(payload["by_month"]) == ["2024-01", "2024-02"]
    assert payload["by_category"]["groceries"]["spending"] == "30.00"
    assert payload["top_spending"] == [{"category": "groceries", "spending": "30.00"}]


def test_summary_currency_mismatch(batch):
    with pytest.raises(LedgerError, match="summary requested in USD but transactions are in EUR"):
        summary_payload(batch, currency="USD")
    assert summary_payload([], currency="USD")["currency"] == "USD"


def test_write_summary_json(tmp_path):
    path = tmp_path / "summary.json"
    write_summary_json(path, {"amount": Decimal("1.50"), "when": FIXED_NOW.date()})
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == {"amount": "1.50", "when": "2024-05-01"}
    with pytest.raises(TypeError, match="Object of type object is not JSON serialisable"):
        write_summary_json(tmp_path / "bad.json", {"x": object()})


def test_render_month_table():
    jan = Totals()
    jan.add(Decimal("1000"))
    jan.add(Decimal("-250.5"))
    table = render_month_table({"2024-01": jan, "2024-02": Totals()})
    assert table.splitlines() == [
        "month    count   income  spending     net",
        "-------  -----  -------  --------  ------",
        "2024-01      2  1000.00    250.50  749.50",
        "2024-02      0     0.00      0.00    0.00",
    ]


def test_render_empty_month_table():
    assert render_month_table({}).splitlines() == [
        "month  count  income  spending  net",
        "-----  -----  ------  --------  ---",
    ]
