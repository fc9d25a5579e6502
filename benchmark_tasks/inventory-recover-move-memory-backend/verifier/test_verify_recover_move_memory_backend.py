import importlib
import importlib.util

import inventory.backends as backends
from inventory.errors import UnknownProductError
from inventory.models import Product


def test_new_module_provides_the_backend():
    module = importlib.import_module("inventory.backends.in_memory")
    assert module.MemoryBackend is backends.MemoryBackend
    assert issubclass(backends.JsonFileBackend, module.MemoryBackend)


def test_old_module_is_gone():
    assert importlib.util.find_spec("inventory.backends.memory") is None


def test_memory_backend_behaviour():
    backend = backends.create_backend("memory")
    backend.save_product(Product("BOL-0001", "Hex bolt", "0.12", "0.35"))
    assert backend.has_product("BOL-0001")
    backend.delete_product("BOL-0001")
    try:
        backend.get_product("BOL-0001")
    except UnknownProductError:
        pass
    else:
        raise AssertionError("deleted product still found")
