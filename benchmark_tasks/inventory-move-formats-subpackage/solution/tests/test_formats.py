import io
from decimal import Decimal

import pytest

from inventory.errors import ImportFormatError
from inventory.exchange.formats import (
    CSV_COLUMNS,
    StockRecord,
    dump_stock_csv,
    parse_stock_csv,
    read_stock_csv,
    records_from_json,
    records_to_json,
)
from inventory.models import Location

HEADER = ",".join(CSV_COLUMNS) + "\n"


def parse(text):
    return parse_stock_csv(io.StringIO(text))


def test_read_sample_file(sample_csv):
    records = read_stock_csv(sample_csv)
    assert len(records) == 9
    first = records[0]
    assert first == StockRecord(
        "BOL-0001", "Hex bolt M8 x 40", Location("A", 1, 1), 250, Decimal("0.12"), Decimal("0.35")
    )
    assert records[-1].sku == "TAP-0300"


def test_blank_lines_are_skipped_and_rows_numbered_from_header():
    text = HEADER + "BOL-0001,Bolt,A-01-01,1,0.1,0.2\n\nNUT-0001,Nut,A-01-02,x,0.1,0.2\n"
    with pytest.raises(ImportFormatError, match="row 4: quantity must be a whole number") as info:
        parse(text)
    assert info.value.row == 4


def test_missing_columns_are_listed():
    with pytest.raises(ImportFormatError, match="row 1: missing required column\\(s\\): unit_cost, unit_price"):
        parse("sku,name,location,quantity\n")


def test_empty_input():
    with pytest.raises(ImportFormatError, match="CSV input is empty"):
        parse("")


def test_extra_columns_and_header_case_are_tolerated():
    text = "SKU,Name,Location,Quantity,Unit_Cost,Unit_Price,Supplier\nBOL-0001,Bolt,a-01-01,3,0.1,0.2,ACME\n"
    [record] = parse(text)
    assert record.location.code == "A-01-01"
    assert record.quantity == 3


def test_wrong_field_count():
    with pytest.raises(ImportFormatError, match="row 2: expected 6 fields but found 5"):
        parse(HEADER + "BOL-0001,Bolt,A-01-01,1,0.1\n")


def test_invalid_location_and_negative_quantity():
    with pytest.raises(ImportFormatError, match="row 2: invalid location code"):
        parse(HEADER + "BOL-0001,Bolt,shelf 3,1,0.1,0.2\n")
    with pytest.raises(ImportFormatError, match="quantity cannot be negative"):
        parse(HEADER + "BOL-0001,Bolt,A-01-01,-1,0.1,0.2\n")


def test_csv_round_trip(sample_csv):
    records = read_stock_csv(sample_csv)
    assert parse(dump_stock_csv(records)) == records


def test_json_round_trip(sample_csv):
    records = read_stock_csv(sample_csv)
    text = records_to_json(records)
    assert '"unit_cost": "0.12"' in text
    assert records_from_json(text) == records


def test_json_errors_name_the_record():
    with pytest.raises(ImportFormatError, match="expected a JSON array"):
        records_from_json('{"sku": "BOL-0001"}')
    with pytest.raises(ImportFormatError, match="row 2: expected an object, got int"):
        records_from_json('[{"sku": "BOL-0001", "name": "Bolt", "location": "A-01-01", '
                          '"quantity": 1, "unit_cost": "1", "unit_price": "2"}, 7]')
    with pytest.raises(ImportFormatError, match="row 1: missing value\\(s\\) for: location"):
        records_from_json('[{"sku": "BOL-0001", "name": "Bolt", "quantity": 1, '
                          '"unit_cost": "1", "unit_price": "2"}]')
