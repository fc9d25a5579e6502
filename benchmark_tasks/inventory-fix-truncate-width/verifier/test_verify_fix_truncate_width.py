import pytest

from inventory.report import NAME_COLUMN_WIDTH, stock_rows
from inventory.service import InventoryService
from inventory.models import Product
from inventory.tables import format_table, truncate

TEXT = "Wood screw 4 x 40 (box of 200)"


@pytest.mark.parametrize("width", range(0, len(TEXT) + 3))
def test_never_longer_than_width(width):
    result = truncate(TEXT, width)
    assert len(result) <= width
    if width >= len(TEXT):
        assert result == TEXT


@pytest.mark.parametrize("width", range(4, len(TEXT)))
def test_cut_text_keeps_prefix_and_marks_cut(width):
    result = truncate(TEXT, width)
    assert len(result) == width
    assert result.endswith("...")
    assert TEXT.startswith(result[:-3])


def test_text_that_fits_exactly_is_untouched():
    assert truncate("abcdef", 6) == "abcdef"
    assert truncate("x" * 24, 24) == "x" * 24


def test_report_name_column():
    service = InventoryService()
    service.add_product(Product("SCR-0010", TEXT, "3.80", "7.90"))
    service.add_product(Product("NUT-0001", "N" * NAME_COLUMN_WIDTH, "0.04", "0.12"))
    names = {row[0]: row[1] for row in stock_rows(service)}
    assert len(names["SCR-0010"]) == NAME_COLUMN_WIDTH
    assert names["NUT-0001"] == "N" * NAME_COLUMN_WIDTH


def test_table_still_renders():
    assert format_table(["A"], [[truncate("abcdefgh", 5)]]).splitlines() == ["A", "-----", "ab..."]
