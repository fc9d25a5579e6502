from app.catalog import load


def test_currency_column():
    rows = load()
    assert list(rows[0]) == ["sku", "name", "price", "currency"]
    assert [r["currency"] for r in rows] == ["EUR", "EUR", "EUR"]
    assert rows[1]["name"] == "notebook, A5"
