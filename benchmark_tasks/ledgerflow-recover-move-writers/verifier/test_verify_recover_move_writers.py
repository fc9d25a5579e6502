import importlib.util
import json
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from unittest import mock

import ledgerflow
import ledgerflow.io
from ledgerflow.cli import main
from ledgerflow.records import Transaction

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def test_new_location_and_reexports():
    from ledgerflow.reporting import writers

    for name in ("render_month_table", "summary_payload", "write_summary_json", "write_transactions_csv"):
        assert getattr(ledgerflow.io, name) is getattr(writers, name)


def test_old_module_is_gone():
    assert importlib.util.find_spec('ledgerflow.io.writers') is None
    assert not (ROOT / 'ledgerflow/io/writers.py').exists()


def test_summary_clock_can_be_pinned_at_the_new_location():
    from ledgerflow.reporting import writers

    fixed = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
    with mock.patch("ledgerflow.reporting.writers._utcnow", return_value=fixed):
        payload = writers.summary_payload([Transaction("A", date(2024, 1, 2), Decimal("-3"))])
    assert payload["generated_at"] == "2024-05-01T12:30:00+00:00"


def test_cli_still_writes_table_and_summary(tmp_path, capsys):
    out = tmp_path / "summary.json"
    code = main([str(ROOT / "data" / "transactions.csv"), "--config", str(ROOT / "ledgerflow.json"),
                 "--summary", str(out)])
    assert code == 1
    assert capsys.readouterr().out.splitlines()[2].split()[0] == "2024-01"
    assert json.loads(out.read_text(encoding="utf-8"))["transactions"] == 28
