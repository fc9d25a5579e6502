
import hookshot.config as config
import hookshot.transport as transport
import hookshot.transport.base as base
from hookshot.config import Settings, loads_config
from hookshot.transport import Deliverer, MemoryTransport


def test_transport_constant_has_the_new_name():
    assert base.DEFAULT_TIMEOUT_SECONDS == 10.0
    assert transport.DEFAULT_TIMEOUT_SECONDS == 10.0
    assert "DEFAULT_TIMEOUT_SECONDS" in transport.__all__


def test_old_name_is_gone():
    assert not hasattr(base, "DEFAULT_TIMEOUT")
    assert not hasattr(transport, "DEFAULT_TIMEOUT")
    assert "DEFAULT_TIMEOUT" not in transport.__all__


def test_config_reuses_the_transport_constant():
    assert config.DEFAULT_TIMEOUT_SECONDS is base.DEFAULT_TIMEOUT_SECONDS


def test_defaults_still_apply():
    assert Settings().timeout == 10.0
    assert loads_config("", environ={}).timeout == 10.0
    assert Deliverer(MemoryTransport()).timeout == 10.0
