import random
from unittest.mock import patch

import pytest

from hookshot.config import load_config
from hookshot.delivery_log import DeliveryLog, DeliveryStatus
from hookshot.events import Event
from hookshot.http import Headers, Request, Response
from hookshot.retry import NO_RETRY, RetryPolicy
from hookshot.signing import SIGNATURE_HEADER, verify_webhook_request
from hookshot.transport import (
    ATTEMPT_HEADER,
    DELIVERY_HEADER,
    EVENT_HEADER,
    Deliverer,
    MemoryTransport,
    Transport,
    TransportError,
    TransportTimeout,
)

URL = "https://hooks.example.com/orders"
SECRET = "whsec_test"


class FakeSleep:
    def __init__(self):
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make_deliverer(transport, **kwargs):
    options = {
        "secrets": SECRET,
        "policy": RetryPolicy(max_retries=3, backoff_base=1.0, backoff_factor=2.0),
        "sleep": FakeSleep(),
    }
    options.update(kwargs)
    return Deliverer(transport, **options)


def test_memory_transport_replays_script_and_records_requests():
    transport = MemoryTransport([Response(200), TransportTimeout(2.5)])
    assert isinstance(transport, Transport)
    request = Request("POST", "/x", Headers({"Host": "e.com"}), b"hi")

    assert transport(request, 2.5).status == 200
    with pytest.raises(TransportTimeout, match="no response within 2.5 seconds"):
        transport(request, 2.5)
    with pytest.raises(TransportError, match="no scripted response for request #3 \\(POST /x\\)"):
        transport(request, 2.5)

    assert transport.pending == 0
    assert transport.timeouts == [2.5, 2.5, 2.5]
    assert transport.last_request.headers.get("Content-Length") == "2"


def test_memory_transport_default_and_callables():
    transport = MemoryTransport(default=Response(204))
    transport.queue(lambda request: Response(200, body=request.body))
    request = Request("POST", "/echo", body=b"ping")
    assert transport(request, 1.0).body == b"ping"
    assert transport(request, 1.0).status == 204


def test_successful_delivery_sends_signed_event(order_event):
    transport = MemoryTransport([Response(200)])
    deliverer = make_deliverer(transport, timeout=3.0)

    outcome = deliverer.deliver(order_event, URL)

    assert outcome.succeeded and outcome.attempts == 1 and outcome.delays == []
    request = transport.last_request
    assert request.target == "/orders"
    assert request.headers.get("Host") == "hooks.example.com"
    assert request.headers.get(EVENT_HEADER) == "order.created"
    assert request.headers.get(DELIVERY_HEADER) == "evt_0001"
    assert request.headers.get(ATTEMPT_HEADER) == "1"
    assert Event.from_json(request.body) == order_event
    assert transport.timeouts == [3.0]
    verify_webhook_request(request, SECRET)
    assert [e.status for e in deliverer.log] == [DeliveryStatus.SUCCEEDED]


def test_unsigned_delivery_has_no_signature_header(order_event):
    transport = MemoryTransport([Response(200)])
    make_deliverer(transport, secrets=None).deliver(order_event, URL)
    assert SIGNATURE_HEADER not in transport.last_request.headers


def test_retryable_statuses_are_retried_with_backoff(order_event):
    transport = MemoryTransport([Response(503), Response(500), Response(202)])
    deliverer = make_deliverer(transport)

    outcome = deliverer.deliver(order_event, URL)

    assert outcome.succeeded
    assert outcome.attempts == 3
    assert outcome.delays == [1.0, 2.0]
    assert deliverer._sleep.calls == [1.0, 2.0]
    assert [r.headers.get(ATTEMPT_HEADER) for r in transport.requests] == ["1", "2", "3"]
    assert [(e.attempt, e.status) for e in deliverer.log] == [
        (1, DeliveryStatus.RETRYING),
        (2, DeliveryStatus.RETRYING),
        (3, DeliveryStatus.SUCCEEDED),
    ]


def test_retry_after_header_overrides_backoff(order_event):
    limited = Response(429, Headers({"Retry-After": "7"}))
    transport = MemoryTransport([limited, Response(200)])
    outcome = make_deliverer(transport).deliver(order_event, URL)
    assert outcome.delays == [7.0]


def test_gives_up_after_max_attempts(order_event):
    transport = MemoryTransport(default=Response(502))
    log = DeliveryLog()
    outcome = make_deliverer(transport, log=log).deliver(order_event, URL)

    assert not outcome.succeeded
    assert outcome.attempts == 4
    assert len(transport.requests) == 4
    assert outcome.delays == [1.0, 2.0, 4.0]
    assert outcome.status_code == 502
    assert outcome.error == "endpoint responded with HTTP 502 Bad Gateway"
    assert log.summary() == {"succeeded": 0, "retrying": 3, "failed": 1}
    assert log.last_status(order_event.event_id) is DeliveryStatus.FAILED


def test_client_errors_are_not_retried(order_event):
    transport = MemoryTransport([Response(400), Response(200)])
    outcome = make_deliverer(transport).deliver(order_event, URL)
    assert outcome.attempts == 1
    assert outcome.status_code == 400
    assert transport.pending == 1


def test_transport_errors_are_retried_unless_marked_permanent(order_event):
    transport = MemoryTransport([TransportTimeout(10), Response(200)])
    assert make_deliverer(transport).deliver(order_event, URL).attempts == 2

    permanent = MemoryTransport([TransportError("bad certificate", retryable=False)])
    outcome = make_deliverer(permanent).deliver(order_event, URL)
    assert outcome.attempts == 1
    assert outcome.response is None and outcome.status_code is None
    assert outcome.error == "bad certificate"


def test_no_retry_policy_makes_a_single_attempt(order_event):
    transport = MemoryTransport(default=Response(503))
    outcome = make_deliverer(transport, policy=NO_RETRY).deliver(order_event, URL)
    assert outcome.attempts == 1 and outcome.delays == []


def test_jittered_delays_use_injected_rng(order_event):
    policy = RetryPolicy(max_retries=2, backoff_base=1.0, jitter=1.0)
    transport = MemoryTransport([Response(503), Response(503), Response(200)])
    deliverer = make_deliverer(transport, policy=policy, rng=random.Random(7))
    outcome = deliverer.deliver(order_event, URL)
    assert outcome.delays == policy.schedule(random.Random(7))


def test_default_sleep_is_time_sleep(order_event):
    transport = MemoryTransport([Response(503), Response(200)])
    deliverer = Deliverer(transport, policy=RetryPolicy(max_retries=1, backoff_base=0.5))
    with patch("hookshot.transport.sender.time.sleep") as fake_sleep:
        deliverer.deliver(order_event, URL)
    fake_sleep.assert_called_once_with(0.5)


def test_invalid_timeout_is_rejected():
    with pytest.raises(ValueError, match="timeout must be positive, got 0"):
        Deliverer(MemoryTransport(), timeout=0)


def test_from_settings_and_deliver_to_matching(config_path, sample_events):
    settings = load_config(config_path, environ={"HOOKSHOT_SECRET": SECRET})
    transport = MemoryTransport(default=Response(200))
    deliverer = Deliverer.from_settings(transport, settings, sleep=FakeSleep())

    assert deliverer.policy.max_retries == 3
    assert deliverer.timeout == 5.0

    delivered = {}
    for event in sample_events:
        outcomes = deliverer.deliver_to_matching(event, settings.endpoints)
        delivered[event.name] = [outcome.url for outcome in outcomes]

    assert delivered == {
        "order.created": ["https://hooks.example.com/orders"],
        "order.item.added": ["https://hooks.example.com/orders"],
        "customer.updated": ["https://crm.example.com/hooks?source=hookshot"],
        "invoice.paid": ["https://billing.example.com:8443/webhooks"],
    }
    assert transport.requests[2].target == "/hooks?source=hookshot"
    assert transport.requests[3].headers.get("Host") == "billing.example.com:8443"
    for request in transport.requests:
        assert request.headers.get("User-Agent") == "hookshot-example/1.0"
        verify_webhook_request(request, SECRET)


def test_deliver_to_matching_deduplicates_urls(order_event):
    transport = MemoryTransport(default=Response(200))
    endpoints = {"order.*": URL, "order.**": URL, "invoice.*": "https://other.example/"}
    outcomes = make_deliverer(transport).deliver_to_matching(order_event, endpoints)
    assert [o.url for o in outcomes] == [URL]
