import io
import json

from inventory.formats import dump_stock_csv, parse_stock_csv, records_from_json, records_to_json
from inventory.models import Product
from inventory.service import InventoryService

CSV = (
    "sku,name,location,quantity,unit_cost,unit_price,category\n"
    "BOL-0001,Hex bolt,A-01-01,5,0.12,0.35,fasteners\n"
    "GLV-0200,Gloves,C-05-02,2,1.95,4.49,\n"
)


def test_csv_category_column_is_read():
    bolt, gloves = parse_stock_csv(io.StringIO(CSV))
    assert bolt.category == "fasteners"
    assert gloves.category == "general"


def test_csv_without_category_column_defaults_to_general():
    [record] = parse_stock_csv(io.StringIO("sku,name,location,quantity,unit_cost,unit_price\nBOL-0001,Bolt,A-01-01,1,0.1,0.2\n"))
    assert record.category == "general"
    assert record.to_product().category == "general"


def test_import_keeps_category():
    service = InventoryService()
    service.import_records(parse_stock_csv(io.StringIO(CSV)))
    assert service.product("BOL-0001").category == "fasteners"
    assert service.product("GLV-0200").category == "general"


def test_export_and_json_round_trip():
    service = InventoryService()
    service.add_product(Product("DRL-0100", "Drill bits", "14.50", "29.90", category="tools"))
    service.receive("DRL-0100", 3, "C-03-01")
    [record] = service.export_records()
    assert record.category == "tools"
    data = json.loads(records_to_json([record]))
    assert data[0]["category"] == "tools"
    assert records_from_json(records_to_json([record])) == [record]


def test_json_import_category():
    [record] = records_from_json(json.dumps([{"sku": "BOL-0001", "name": "Bolt", "location": "A-01-01",
                                              "quantity": 1, "unit_cost": "1", "unit_price": "2",
                                              "category": "fasteners"}]))
    assert record.to_product().category == "fasteners"


def test_csv_export_keeps_six_columns():
    [record] = parse_stock_csv(io.StringIO(CSV))[:1]
    header, row = dump_stock_csv([record]).splitlines()
    assert header == "sku,name,location,quantity,unit_cost,unit_price"
    assert row == "BOL-0001,Hex bolt,A-01-01,5,0.12,0.35"
