from hookshot.config import loads_config
from hookshot.events import Event
from hookshot.http import Response
from hookshot.retry import RetryPolicy
from hookshot.transport import Deliverer, MemoryTransport


def test_default_policy_retries_five_times():
    policy = RetryPolicy()
    assert policy.max_retries == 5
    assert policy.max_attempts == 6
    assert len(policy.schedule()) == 5


def test_explicit_max_retries_still_wins():
    assert RetryPolicy(max_retries=2).max_attempts == 3


def test_empty_config_falls_back_to_five_retries():
    assert loads_config("", environ={}).retry_policy.max_retries == 5


def test_default_deliverer_makes_six_attempts():
    transport = MemoryTransport(default=Response(503))
    deliverer = Deliverer(transport, sleep=lambda seconds: None)
    outcome = deliverer.deliver(Event("ping"), "https://hooks.example.com/in")
    assert not outcome.succeeded
    assert outcome.attempts == 6
    assert len(transport.requests) == 6
