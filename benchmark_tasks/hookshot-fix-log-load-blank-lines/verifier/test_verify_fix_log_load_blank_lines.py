import pytest

from hookshot.delivery_log import DeliveryLog, DeliveryStatus
from hookshot.events import Event

URL = "https://hooks.example.com/orders"


def make_log(count):
    log = DeliveryLog()
    for number in range(1, count + 1):
        log.record(Event("ping", event_id=f"evt_{number}"), URL, 1, DeliveryStatus.SUCCEEDED)
    return log


def test_blank_lines_are_ignored(tmp_path):
    log = make_log(3)
    lines = log.to_jsonl().splitlines()
    path = tmp_path / "log.jsonl"
    path.write_text("\n" + lines[0] + "\n\n   \n" + lines[1] + "\n" + lines[2] + "\n\n", encoding="utf-8")
    assert list(DeliveryLog.load(path)) == list(log)


def test_round_trip_still_works(tmp_path):
    log = make_log(2)
    path = tmp_path / "log.jsonl"
    log.save(path)
    assert list(DeliveryLog.load(path)) == list(log)


def test_empty_file_gives_empty_log(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    assert len(DeliveryLog.load(path)) == 0


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"event_id": "e"}\n', r"log.jsonl:1: delivery log entry is missing field 'event_name'"),
        ("\n[1, 2]\n", r"log.jsonl:2: delivery log entry must be an object, got list"),
        ("\n\n{oops\n", r"log.jsonl:3: invalid JSON"),
    ],
)
def test_errors_report_one_based_line_numbers(tmp_path, content, message):
    path = tmp_path / "log.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        DeliveryLog.load(path)
