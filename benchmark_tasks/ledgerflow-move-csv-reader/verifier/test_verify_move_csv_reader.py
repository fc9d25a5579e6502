import importlib.util
from pathlib import Path

import ledgerflow
import ledgerflow.io

ROOT = Path(ledgerflow.__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "transactions.csv"


def test_new_location():
    from ledgerflow.io.formats import csv_reader

    assert csv_reader.DEFAULT_DELIMITER == ","
    assert len(csv_reader.read_transactions(SAMPLE).transactions) == 31


def test_old_module_is_gone():
    assert importlib.util.find_spec('ledgerflow.io.csv_reader') is None
    assert not (ROOT / 'ledgerflow/io/csv_reader.py').exists()


def test_io_exports_still_work():
    for name in ledgerflow.io.__all__:
        assert getattr(ledgerflow.io, name) is not None, name
    result = ledgerflow.io.read_transactions_from_string("id,date,amount\nA,2024-01-01,1\n")
    assert [t.txn_id for t in result.transactions] == ["A"]


def test_reader_registry_finds_the_moved_reader():
    from ledgerflow.io.formats import csv_reader

    read = ledgerflow.io.reader_for("csv")
    assert read is csv_reader.read_transactions
    assert len(read(SAMPLE).transactions) == 31
