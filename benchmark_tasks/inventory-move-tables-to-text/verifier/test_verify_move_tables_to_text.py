import importlib
import importlib.util
from datetime import date

from inventory.models import Product
from inventory.service import InventoryService


def test_new_location_works():
    tables = importlib.import_module("inventory.text.tables")
    assert tables.truncate("Hex bolt M8 x 40", 10) == "Hex bol..."
    assert tables.format_table(["SKU", "Qty"], [["BOL-0001", "5"]], align="lr").splitlines() == [
        "SKU       Qty",
        "--------  ---",
        "BOL-0001    5",
    ]


def test_old_module_is_gone():
    assert importlib.util.find_spec("inventory.tables") is None


def test_report_still_renders():
    from inventory.report import render_report

    service = InventoryService()
    service.add_product(Product("SCR-0010", "Wood screw 4 x 40 (box of 200)", "3.80", "7.90"))
    service.receive("SCR-0010", 4, "B-01-01")
    text = render_report(service, as_of=date(2024, 3, 1))
    assert "Wood screw 4 x 40 (bo..." in text
    assert text.splitlines()[-1].split() == ["SCR-0010", "4", "10", "16"]
