from app.catalog import load


def test_columns_are_frozen():
    assert list(load()[0]) == ["sku", "name", "price"]
