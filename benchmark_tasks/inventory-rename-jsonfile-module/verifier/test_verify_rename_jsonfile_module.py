import importlib
import importlib.util

from inventory.backends import StorageBackend, create_backend
from inventory.models import Location, Product, StockLevel


def test_new_module_exists():
    module = importlib.import_module("inventory.backends.json_file")
    assert issubclass(module.JsonFileBackend, StorageBackend)
    assert module.STORAGE_FORMAT_VERSION == 1


def test_old_module_is_gone():
    assert importlib.util.find_spec("inventory.backends.jsonfile") is None


def test_package_exports_the_class():
    from inventory.backends import JsonFileBackend
    from inventory.backends.json_file import JsonFileBackend as direct

    assert JsonFileBackend is direct


def test_create_json_backend_round_trip(tmp_path):
    path = tmp_path / "store.json"
    backend = create_backend("json", path=path)
    backend.save_product(Product("BOL-0001", "Hex bolt", "0.12", "0.35"))
    backend.save_levels([StockLevel("BOL-0001", Location("A", 1, 1), 4)])
    again = create_backend("json", path=path)
    assert [p.sku for p in again.list_products()] == ["BOL-0001"]
    assert again.load_levels() == [StockLevel("BOL-0001", Location("A", 1, 1), 4)]
    assert type(create_backend("memory")).__name__ == "MemoryBackend"
