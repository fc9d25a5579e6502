import logging

from app.sync import merge


def test_log_records_of_merge(caplog):
    caplog.set_level(logging.DEBUG, logger="app.sync")
    merge({"a": 1}, {"b": 2})
    assert [r.getMessage() for r in caplog.records] == ["merged 1 new record(s)"]
