import logging

from app.sync import merge


def test_merge_logs_on_entry(caplog):
    caplog.set_level(logging.DEBUG, logger="app.sync")
    assert merge({"a": 1}, {"a": 2}) == {"a": 2}
    debug = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert [r.getMessage() for r in debug] == ["merging local and remote records"]
