from datetime import date
from decimal import Decimal
from pathlib import Path

import ledgerflow
import ledgerflow.aggregate
from ledgerflow.cli import main
from ledgerflow.io import summary_payload
from ledgerflow.records import Transaction

ROOT = Path(ledgerflow.__file__).resolve().parent.parent
BATCH = [
    Transaction("A", date(2024, 1, 2), Decimal("100")),
    Transaction("B", date(2024, 3, 9), Decimal("-40")),
]


def test_monthly_totals():
    totals = ledgerflow.aggregate.monthly_totals(BATCH)
    assert list(totals) == ["2024-01", "2024-02", "2024-03"]
    assert totals["2024-03"].spending == Decimal("40")
    assert list(ledgerflow.aggregate.monthly_totals(BATCH, fill_gaps=False)) == ["2024-01", "2024-03"]


def test_old_name_is_gone():
    assert not hasattr(ledgerflow.aggregate, "totals_by_month")


def test_summary_by_month():
    assert list(summary_payload(BATCH)["by_month"]) == ["2024-01", "2024-02", "2024-03"]


def test_cli_prints_month_table(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text("id,date,amount,description\nA,2024-01-01,5,Gift\nB,2024-02-03,-2,Bus\n", encoding="utf-8")
    assert main([str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == ["2024-01", "2024-02"]


def test_readme_uses_new_name():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "totals_by_month" not in text
    assert "monthly_totals" in text
