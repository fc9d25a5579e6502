import pytest

from inventory.text.tables import column_widths, format_row, format_table, truncate


def test_truncate():
    assert truncate("Hex bolt", 20) == "Hex bolt"
    assert truncate("Hex bolt M8 x 40", 10) == "Hex bol..."
    assert len(truncate("Hex bolt M8 x 40", 10)) == 10
    assert truncate("abcdef", 3) == "abc"
    assert truncate("abcdef", 6) == "abcdef"


def test_truncate_rejects_negative_width():
    with pytest.raises(ValueError, match="width cannot be negative"):
        truncate("x", -1)


def test_column_widths_cover_headers_and_cells():
    assert column_widths(["SKU", "Qty"], [["BOL-0001", "5"], ["X", "12345"]]) == [8, 5]
    assert column_widths(["A", "B"], []) == [1, 1]


def test_column_widths_reports_ragged_row():
    with pytest.raises(ValueError, match="row 2 has 1 cells but the table has 2 columns"):
        column_widths(["A", "B"], [["1", "2"], ["3"]])


def test_format_row_alignment():
    assert format_row(["a", "1"], [3, 4], "lr") == "a       1"


def test_format_table_layout():
    table = format_table(["SKU", "Qty"], [["BOL-0001", "5"], ["NUT-0001", "300"]], align="lr")
    assert table.splitlines() == [
        "SKU       Qty",
        "--------  ---",
        "BOL-0001    5",
        "NUT-0001  300",
    ]


def test_format_table_validates_align():
    with pytest.raises(ValueError, match="one 'l' or 'r' per column"):
        format_table(["A", "B"], [], align="lc")
