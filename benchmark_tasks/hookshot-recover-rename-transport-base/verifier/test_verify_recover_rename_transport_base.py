import importlib
import importlib.util
from pathlib import Path

import pytest

import hookshot.transport as transport
from hookshot.http import Request, Response


def test_new_module_defines_the_protocol_and_errors():
    module = importlib.import_module("hookshot.transport.protocol")
    assert transport.Transport is module.Transport
    assert transport.TransportError is module.TransportError
    assert transport.TransportTimeout is module.TransportTimeout
    assert module.DEFAULT_TIMEOUT == 10.0


def test_old_module_is_gone():
    assert importlib.util.find_spec("hookshot.transport.base") is None
    assert not Path("hookshot/transport/base.py").exists()


def test_transports_still_satisfy_the_protocol():
    module = importlib.import_module("hookshot.transport.protocol")
    memory = transport.MemoryTransport()
    assert isinstance(memory, module.Transport)
    with pytest.raises(module.TransportError, match="no scripted response"):
        memory(Request("GET", "/"), 1.0)
    error = module.TransportTimeout(2.5)
    assert str(error) == "no response within 2.5 seconds" and error.retryable
