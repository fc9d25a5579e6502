from unittest.mock import patch

import pytest

from hookshot.transport.delivery_log import (
    DEFAULT_LOG_CAPACITY,
    DeliveryAttempt,
    DeliveryLog,
    DeliveryStatus,
)
from hookshot.events import Event

URL = "https://hooks.example.com/orders"


def make_log(count: int, capacity: int = DEFAULT_LOG_CAPACITY) -> DeliveryLog:
    log = DeliveryLog(capacity)
    for number in range(1, count + 1):
        log.record(Event("ping", event_id=f"evt_{number}"), URL, 1, DeliveryStatus.SUCCEEDED)
    return log


def test_record_captures_event_and_timestamp(order_event):
    log = DeliveryLog()
    with patch("hookshot.transport.delivery_log.utc_now", return_value=1234.5):
        entry = log.record(order_event, URL, 1, "retrying", status_code=503, error="HTTP 503")
    assert entry == DeliveryAttempt(
        event_id="evt_0001",
        event_name="order.created",
        url=URL,
        attempt=1,
        status=DeliveryStatus.RETRYING,
        status_code=503,
        error="HTTP 503",
        recorded_at=1234.5,
    )
    assert len(log) == 1


def test_record_validates_arguments(order_event):
    with pytest.raises(ValueError, match="attempt numbers start at 1, got 0"):
        DeliveryLog().record(order_event, URL, 0, DeliveryStatus.FAILED)
    with pytest.raises(ValueError, match="'lost' is not a valid DeliveryStatus"):
        DeliveryLog().record(order_event, URL, 1, "lost")
    with pytest.raises(ValueError, match="capacity must be at least 1, got 0"):
        DeliveryLog(capacity=0)


def test_oldest_entries_are_evicted_at_capacity():
    log = make_log(5, capacity=3)
    assert len(log) == 3
    assert [entry.event_id for entry in log] == ["evt_3", "evt_4", "evt_5"]


@pytest.mark.parametrize(
    "count, expected",
    [
        (0, []),
        (-1, []),
        (1, ["evt_4"]),
        (2, ["evt_3", "evt_4"]),
        (4, ["evt_1", "evt_2", "evt_3", "evt_4"]),
        (10, ["evt_1", "evt_2", "evt_3", "evt_4"]),
    ],
)
def test_latest(count, expected):
    assert [entry.event_id for entry in make_log(4).latest(count)] == expected


def test_attempts_last_status_failures_and_summary(order_event):
    other = Event("invoice.paid", event_id="evt_other")
    log = DeliveryLog()
    log.record(order_event, URL, 1, DeliveryStatus.RETRYING, status_code=500)
    log.record(other, URL, 1, DeliveryStatus.SUCCEEDED, status_code=200)
    log.record(order_event, URL, 2, DeliveryStatus.FAILED, status_code=500)

    assert [entry.attempt for entry in log.attempts_for("evt_0001")] == [1, 2]
    assert log.last_status("evt_0001") is DeliveryStatus.FAILED
    assert log.last_status("evt_other") is DeliveryStatus.SUCCEEDED
    assert log.last_status("evt_missing") is None
    assert [entry.event_id for entry in log.failures()] == ["evt_0001"]
    assert log.summary() == {"succeeded": 1, "retrying": 1, "failed": 1}

    log.clear()
    assert log.summary() == {"succeeded": 0, "retrying": 0, "failed": 0}


def test_save_and_load_round_trip(tmp_path, order_event):
    log = DeliveryLog()
    with patch("hookshot.transport.delivery_log.utc_now", side_effect=[10.0, 20.0]):
        log.record(order_event, URL, 1, DeliveryStatus.RETRYING, status_code=502, error="bad")
        log.record(order_event, URL, 2, DeliveryStatus.SUCCEEDED, status_code=200)
    path = tmp_path / "deliveries.jsonl"
    log.save(path)

    assert path.read_text(encoding="utf-8").count("\n") == 2
    loaded = DeliveryLog.load(path)
    assert list(loaded) == list(log)
    assert [entry.recorded_at for entry in loaded] == [10.0, 20.0]


def test_load_respects_capacity(tmp_path):
    path = tmp_path / "log.jsonl"
    make_log(5).save(path)
    assert [entry.event_id for entry in DeliveryLog.load(path, capacity=2)] == ["evt_4", "evt_5"]


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"event_id": "e"}\n', "log.jsonl:1: delivery log entry is missing field 'event_name'"),
        ("\n[1, 2]\n", "log.jsonl:2: delivery log entry must be an object, got list"),
        ("\n\n{oops\n", "log.jsonl:3: invalid JSON"),
    ],
)
def test_load_reports_line_numbers(tmp_path, content, message):
    path = tmp_path / "log.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        DeliveryLog.load(path)
