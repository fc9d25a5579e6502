from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.errors import SchemaError
from ledgerflow.core.records import UNCATEGORISED
from ledgerflow.schema import (
    TRANSACTION_SCHEMA,
    Column,
    Schema,
    is_currency_code,
    parse_currency,
    parse_date,
    parse_decimal,
    row_to_transaction,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12.50", Decimal("12.50")),
        (" -3 ", Decimal("-3")),
        ("+7.1", Decimal("7.1")),
        ("-1,249.00", Decimal("-1249.00")),
        ("(35.00)", Decimal("-35.00")),
    ],
)
def test_parse_decimal(raw, expected):
    assert parse_decimal(raw) == expected


@pytest.mark.parametrize("raw", ["abc", "", "   ", "NaN", "Infinity"])
def test_parse_decimal_rejects_garbage(raw):
    with pytest.raises(SchemaError):
        parse_decimal(raw)


def test_parse_decimal_error_message():
    with pytest.raises(SchemaError, match="cannot parse 'x1' as a decimal amount"):
        parse_decimal("x1")


@pytest.mark.parametrize("raw", ["2024-03-09", "09/03/2024", "09.03.2024"])
def test_parse_date_formats(raw):
    assert parse_date(raw) == date(2024, 3, 9)


def test_parse_date_lists_expected_formats():
    with pytest.raises(SchemaError, match=r"expected one of: %Y-%m-%d"):
        parse_date("March 9")


def test_currency_codes():
    assert parse_currency(" usd ") == "USD"
    assert is_currency_code("EUR")
    assert not is_currency_code("EURO")
    with pytest.raises(SchemaError, match="invalid currency code 'E1'"):
        parse_currency("E1")


def test_column_blank_handling():
    optional = Column("note", str.strip, required=False, default="-")
    assert optional.coerce(None) == "-"
    assert optional.coerce("  ") == "-"
    with pytest.raises(SchemaError, match="column 'id': value is required"):
        Column("id", str.strip).coerce("")


def test_schema_rejects_duplicate_columns():
    with pytest.raises(ValueError, match="duplicate column name 'a'"):
        Schema((Column("a", str), Column("a", str)))


def test_check_header_reports_missing_columns():
    TRANSACTION_SCHEMA.check_header(["ID", "Date", "Amount"])
    with pytest.raises(SchemaError, match="missing required column\\(s\\): date, amount"):
        TRANSACTION_SCHEMA.check_header(["id", "currency"])
    with pytest.raises(SchemaError, match="no header"):
        TRANSACTION_SCHEMA.check_header(None)


def test_column_lookup():
    assert TRANSACTION_SCHEMA.column("amount").required
    with pytest.raises(KeyError, match="no column named 'amt'"):
        TRANSACTION_SCHEMA.column("amt")


def test_coerce_row_and_build_transaction():
    raw = {" Id ": "T9", "DATE": "2024-02-01", "amount": "-5", "category": " Food ", None: ["extra"]}
    values = TRANSACTION_SCHEMA.coerce_row(raw, line_no=4)
    txn = row_to_transaction(values)
    assert txn.txn_id == "T9"
    assert txn.booked_on == date(2024, 2, 1)
    assert txn.amount == Decimal("-5")
    assert txn.currency == "EUR"
    assert txn.category == "food"


def test_coerce_row_defaults_category():
    values = TRANSACTION_SCHEMA.coerce_row({"id": "T1", "date": "2024-01-01", "amount": "1"})
    assert values["category"] == UNCATEGORISED


def test_coerce_row_error_carries_line_and_column():
    with pytest.raises(SchemaError) as info:
        TRANSACTION_SCHEMA.coerce_row({"id": "T1", "date": "2024-01-01", "amount": "?"}, line_no=12)
    assert info.value.line_no == 12
    assert info.value.column == "amount"
