from datetime import date
from decimal import Decimal

from ledgerflow.aggregate import Totals
from ledgerflow.io import render_month_table, summary_payload
from ledgerflow.records import Transaction


def test_as_dict_reports_spending():
    totals = Totals()
    totals.add(Decimal("1000"))
    totals.add(Decimal("-250.5"))
    assert totals.as_dict() == {"count": 2, "income": "1000.00", "spending": "250.50", "net": "749.50"}


def test_summary_spending_per_month_and_category():
    batch = [
        Transaction("A", date(2024, 1, 2), Decimal("2000"), category="income"),
        Transaction("B", date(2024, 1, 9), Decimal("-30.25"), category="groceries"),
        Transaction("C", date(2024, 2, 1), Decimal("-12.75"), category="groceries"),
    ]
    payload = summary_payload(batch)
    assert payload["totals"]["spending"] == "43.00"
    assert payload["by_month"]["2024-01"]["spending"] == "30.25"
    assert payload["by_month"]["2024-02"]["income"] == "0.00"
    assert payload["by_category"]["groceries"]["spending"] == "43.00"
    assert payload["by_category"]["income"]["spending"] == "0.00"


def test_month_table_spending_column():
    totals = Totals()
    totals.add(Decimal("10"))
    totals.add(Decimal("-4"))
    row = render_month_table({"2024-03": totals}).splitlines()[2].split()
    assert row == ["2024-03", "2", "10.00", "4.00", "6.00"]
