from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.errors import LedgerError, SchemaError
from ledgerflow.io import read_transactions, read_transactions_from_string, reader_for
from ledgerflow.io.formats.csv_reader import DEFAULT_DELIMITER, RowError


def test_read_sample_file(sample_csv):
    result = read_transactions(sample_csv)
    assert len(result.transactions) == 31
    assert result.errors == [RowError(17, "cannot parse 'abc' as a decimal amount", "amount")]
    assert not result.ok
    first = result.transactions[0]
    assert (first.txn_id, first.booked_on, first.amount) == ("T001", date(2024, 1, 2), Decimal("2500.00"))


def test_sample_file_mixed_formats(sample_csv):
    by_id = {t.txn_id: t for t in read_transactions(sample_csv).transactions}
    assert by_id["T006"].booked_on == date(2024, 1, 15)
    assert by_id["T013"].amount == Decimal("-1249.00")
    assert by_id["T025"].amount == Decimal("-35.00")
    assert by_id["T005"].category == "housing"


def test_reader_for_known_and_unknown_formats(sample_csv):
    read = reader_for(" CSV ")
    assert read is read_transactions
    assert len(read(sample_csv).transactions) == 31
    with pytest.raises(LedgerError, match=r"unsupported input format 'xlsx' \(known: csv\)"):
        reader_for("xlsx")


def test_line_numbers_account_for_header_and_blank_lines():
    text = "id,date,amount\nA,2024-01-01,1\n\nB,2024-01-02,oops\nC,bad,2\n"
    result = read_transactions_from_string(text)
    assert [t.txn_id for t in result.transactions] == ["A"]
    assert [(e.line_no, e.column) for e in result.errors] == [(4, "amount"), (5, "date")]
    assert str(result.errors[0]) == "line 4, column 'amount': cannot parse 'oops' as a decimal amount"


def test_rows_of_only_delimiters_are_skipped():
    result = read_transactions_from_string("id,date,amount\n,,\nA,2024-01-01,1\n")
    assert result.ok
    assert len(result.transactions) == 1


def test_custom_delimiter():
    assert DEFAULT_DELIMITER == ","
    result = read_transactions_from_string("id;date;amount\nA;2024-01-01;1,5\n", delimiter=";")
    # the thousands separator is stripped, so "1,5" reads as 15
    assert result.transactions[0].amount == Decimal("15")


def test_strict_mode_raises_with_location():
    with pytest.raises(SchemaError, match="line 2, column 'amount'"):
        read_transactions_from_string("id,date,amount\nA,2024-01-01,x\n", strict=True)


def test_missing_header_column():
    with pytest.raises(SchemaError, match="missing required column\\(s\\): amount"):
        read_transactions_from_string("id,date\nA,2024-01-01\n")


def test_missing_file(tmp_path):
    with pytest.raises(LedgerError, match="input file not found"):
        read_transactions(tmp_path / "missing.csv")


def test_utf8_bom_is_tolerated(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_text("\ufeffid,date,amount\nA,2024-01-01,3\n", encoding="utf-8")
    assert read_transactions(path).transactions[0].txn_id == "A"
