import importlib
import importlib.util
import io
import re
from pathlib import Path

from inventory.cli import main
from inventory.service import InventoryService


def test_new_location_works():
    formats = importlib.import_module("inventory.exchange.formats")
    [record] = formats.parse_stock_csv(io.StringIO(
        "sku,name,location,quantity,unit_cost,unit_price\nBOL-0001,Bolt,A-01-01,3,0.12,0.35\n"
    ))
    assert record.quantity == 3
    assert formats.records_from_json(formats.records_to_json([record])) == [record]


def test_old_module_is_gone():
    assert importlib.util.find_spec("inventory.formats") is None


def test_service_and_cli_still_import_and_export():
    service = InventoryService()
    assert service.import_csv("data/sample_stock.csv") == 9
    assert len(service.export_records()) == 8
    out = io.StringIO()
    assert main(["export", "data/sample_stock.csv", "--format", "csv"], out=out) == 0
    assert out.getvalue().startswith("sku,name,location,quantity,unit_cost,unit_price\n")


def test_readme_names_the_new_module():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert "inventory.exchange.formats" in readme
    assert not re.search(r"inventory\.formats\b|inventory/formats\.py", readme)
