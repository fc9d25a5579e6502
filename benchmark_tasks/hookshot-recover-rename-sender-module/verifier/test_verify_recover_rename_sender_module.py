import importlib
import importlib.util
from pathlib import Path
from unittest.mock import patch

import hookshot
import hookshot.transport as transport
from hookshot.events import Event
from hookshot.http import Response
from hookshot.retry import RetryPolicy


def test_new_module_defines_the_deliverer():
    module = importlib.import_module("hookshot.transport.deliverer")
    assert transport.Deliverer is module.Deliverer
    assert hookshot.Deliverer is module.Deliverer
    assert transport.DeliveryOutcome is module.DeliveryOutcome
    assert module.EVENT_HEADER == transport.EVENT_HEADER == "X-Hookshot-Event"


def test_old_module_is_gone():
    assert importlib.util.find_spec("hookshot.transport.sender") is None
    assert not Path("hookshot/transport/sender.py").exists()


def test_sleep_can_be_patched_at_the_new_location():
    memory = transport.MemoryTransport([Response(503), Response(200)])
    deliverer = transport.Deliverer(memory, policy=RetryPolicy(max_retries=1, backoff_base=0.5))
    with patch("hookshot.transport.deliverer.time.sleep") as fake_sleep:
        outcome = deliverer.deliver(Event("ping"), "https://e.com/h")
    assert outcome.succeeded and outcome.attempts == 2
    fake_sleep.assert_called_once_with(0.5)
