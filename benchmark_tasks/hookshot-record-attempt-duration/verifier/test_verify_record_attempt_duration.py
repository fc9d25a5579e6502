import json

from hookshot.delivery_log import DeliveryLog, DeliveryStatus
from hookshot.events import Event
from hookshot.http import Response
from hookshot.retry import RetryPolicy
from hookshot.transport import Deliverer, MemoryTransport, TransportTimeout

URL = "https://hooks.example.com/orders"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def takes(clock, seconds, result):
    def answer(request):
        clock.now += seconds
        if isinstance(result, Exception):
            raise result
        return result

    return answer


def test_record_stores_duration():
    entry = DeliveryLog().record(Event("ping"), URL, 1, "succeeded", status_code=200, duration=0.125)
    assert entry.duration == 0.125


def test_duration_defaults_to_none():
    assert DeliveryLog().record(Event("ping"), URL, 1, DeliveryStatus.FAILED).duration is None


def test_duration_round_trips_through_jsonl(tmp_path):
    log = DeliveryLog()
    log.record(Event("ping"), URL, 1, DeliveryStatus.RETRYING, status_code=503, duration=1.5)
    log.record(Event("ping"), URL, 2, DeliveryStatus.SUCCEEDED, status_code=200)
    path = tmp_path / "log.jsonl"
    log.save(path)
    loaded = DeliveryLog.load(path)
    assert [e.duration for e in loaded] == [1.5, None]
    assert list(loaded) == list(log)


def test_old_log_files_still_load(tmp_path):
    line = {"event_id": "evt_1", "event_name": "ping", "url": URL, "attempt": 1,
            "status": "succeeded", "status_code": 200, "error": None, "recorded_at": 5.0}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    [entry] = list(DeliveryLog.load(path))
    assert entry.duration is None
    assert entry.recorded_at == 5.0


def test_deliverer_logs_each_attempt_duration():
    clock = Clock()
    transport = MemoryTransport([
        takes(clock, 0.25, Response(503)),
        takes(clock, 0.5, TransportTimeout(5)),
        takes(clock, 0.75, Response(200)),
    ])
    deliverer = Deliverer(
        transport,
        policy=RetryPolicy(max_retries=3, backoff_base=2.0),
        sleep=clock.sleep,
        clock=clock,
    )
    outcome = deliverer.deliver(Event("ping"), URL)
    assert outcome.succeeded and outcome.attempts == 3
    assert [(e.status, e.duration) for e in deliverer.log] == [
        (DeliveryStatus.RETRYING, 0.25),
        (DeliveryStatus.RETRYING, 0.5),
        (DeliveryStatus.SUCCEEDED, 0.75),
    ]


def test_final_failure_is_timed_too():
    clock = Clock()
    transport = MemoryTransport([takes(clock, 2.0, Response(400))])
    deliverer = Deliverer(transport, sleep=clock.sleep, clock=clock)
    deliverer.deliver(Event("ping"), URL)
    [entry] = list(deliverer.log)
    assert entry.status is DeliveryStatus.FAILED
    assert entry.duration == 2.0


def test_default_clock_gives_a_non_negative_duration():
    deliverer = Deliverer(MemoryTransport([Response(200)]))
    deliverer.deliver(Event("ping"), URL)
    [entry] = list(deliverer.log)
    assert entry.duration is not None and entry.duration >= 0
