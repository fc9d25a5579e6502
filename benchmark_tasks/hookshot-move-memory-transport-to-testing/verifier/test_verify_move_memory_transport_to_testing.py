import importlib
import importlib.util
from pathlib import Path

import pytest

import hookshot
import hookshot.transport as transport
from hookshot.http import Request, Response


def test_new_location_works():
    module = importlib.import_module("hookshot.testing.memory")
    memory = module.MemoryTransport([Response(201)], default=Response(204))
    assert memory(Request("POST", "/in", body=b"x"), 2.0).status == 201
    assert memory(Request("POST", "/in", body=b"x"), 2.0).status == 204
    assert memory.timeouts == [2.0, 2.0]


def test_old_module_is_gone():
    assert importlib.util.find_spec("hookshot.transport.memory") is None
    assert not Path("hookshot/transport/memory.py").exists()


def test_reexports_point_at_the_moved_class():
    module = importlib.import_module("hookshot.testing.memory")
    assert transport.MemoryTransport is module.MemoryTransport
    assert hookshot.MemoryTransport is module.MemoryTransport


def test_builtin_transport_still_finds_memory():
    module = importlib.import_module("hookshot.testing.memory")
    created = transport.builtin_transport("memory", default=Response(202))
    assert isinstance(created, module.MemoryTransport)
    assert created(Request("GET", "/"), 1.0).status == 202
    with pytest.raises(ValueError, match="unknown transport"):
        transport.builtin_transport("nope")
