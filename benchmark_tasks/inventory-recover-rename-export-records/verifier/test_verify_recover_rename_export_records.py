import io
import json

from inventory.cli import main
from inventory.models import Product
from inventory.service import InventoryService


def test_stock_records_replaces_export_records():
    assert hasattr(InventoryService, "stock_records")
    assert not hasattr(InventoryService, "export_records")


def test_stock_records_behaviour():
    service = InventoryService()
    service.add_product(Product("BOL-0001", "Hex bolt", "0.12", "0.35"))
    service.receive("BOL-0001", 3, "B-01-01")
    service.receive("BOL-0001", 2, "A-01-01")
    records = service.stock_records()
    assert [(r.location.code, r.quantity) for r in records] == [("A-01-01", 2), ("B-01-01", 3)]


def test_cli_export_still_works():
    out = io.StringIO()
    assert main(["export", "data/sample_stock.csv"], out=out) == 0
    assert len(json.loads(out.getvalue())) == 8
