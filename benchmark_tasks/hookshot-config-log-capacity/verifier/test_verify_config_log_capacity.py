from pathlib import Path

import pytest

from hookshot.config import ConfigError, Settings, load_config, loads_config
from hookshot.delivery_log import DEFAULT_LOG_CAPACITY, DeliveryLog
from hookshot.events import Event
from hookshot.http import Response
from hookshot.transport import Deliverer, MemoryTransport


def test_default_capacity():
    assert DEFAULT_LOG_CAPACITY == 1000
    assert Settings().log_capacity == DEFAULT_LOG_CAPACITY
    assert loads_config("", environ={}).log_capacity == DEFAULT_LOG_CAPACITY


def test_capacity_is_read_from_delivery_section():
    settings = loads_config("[delivery]\nlog_capacity = 25\n", environ={})
    assert settings.log_capacity == 25


@pytest.mark.parametrize("value", ["0", "-3", "lots", "2.5"])
def test_invalid_capacity_is_rejected(value):
    with pytest.raises(ConfigError, match="log_capacity"):
        loads_config(f"[delivery]\nlog_capacity = {value}\n", environ={})


def test_example_config_still_loads():
    assert load_config("hookshot.ini", environ={}).log_capacity >= 1


def test_from_settings_sizes_the_log():
    settings = loads_config("[delivery]\nlog_capacity = 2\n", environ={})
    transport = MemoryTransport(default=Response(200))
    deliverer = Deliverer.from_settings(transport, settings, sleep=lambda s: None)
    assert deliverer.log.capacity == 2
    for number in range(3):
        deliverer.deliver(Event("ping", event_id=f"evt_{number}"), "https://e.com/h")
    assert [entry.event_id for entry in deliverer.log] == ["evt_1", "evt_2"]


def test_explicit_log_wins():
    settings = loads_config("[delivery]\nlog_capacity = 2\n", environ={})
    log = DeliveryLog(7)
    deliverer = Deliverer.from_settings(MemoryTransport(), settings, log=log)
    assert deliverer.log is log


def test_readme_documents_the_option():
    assert "log_capacity" in Path("README.md").read_text(encoding="utf-8")
