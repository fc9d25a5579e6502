import json

import pytest

from inventory.backends import JsonFileBackend, MemoryBackend, StorageBackend, create_backend
from inventory.backends.json_file import STORAGE_FORMAT_VERSION, product_from_dict, product_to_dict
from inventory.errors import BackendError, UnknownProductError
from inventory.models import Location, Product, StockLevel

BOLT = Product("BOL-0001", "Hex bolt", "0.12", "0.35", reorder_threshold=50)
NUT = Product("NUT-0001", "Hex nut", "0.04", "0.12")


@pytest.fixture(params=["memory", "json"])
def backend(request, tmp_path):
    if request.param == "memory":
        return MemoryBackend()
    return JsonFileBackend(tmp_path / "store.json")


def test_products_round_trip(backend):
    backend.save_product(NUT)
    backend.save_product(BOLT)
    assert backend.get_product("BOL-0001") == BOLT
    assert backend.list_products() == [BOLT, NUT]
    assert backend.has_product("NUT-0001")


def test_unknown_product(backend):
    with pytest.raises(UnknownProductError, match="unknown SKU 'XYZ-0000'"):
        backend.get_product("XYZ-0000")
    with pytest.raises(UnknownProductError):
        backend.delete_product("XYZ-0000")
    assert not backend.has_product("XYZ-0000")


def test_delete_product(backend):
    backend.save_product(BOLT)
    backend.delete_product("BOL-0001")
    assert backend.list_products() == []


def test_levels_snapshot_drops_empty_levels(backend):
    levels = [StockLevel("BOL-0001", Location("A", 1, 1), 5), StockLevel("BOL-0001", Location("A", 1, 2), 0)]
    backend.save_levels(levels)
    assert backend.load_levels() == levels[:1]


def test_json_backend_persists_across_instances(tmp_path):
    path = tmp_path / "nested" / "store.json"
    first = JsonFileBackend(path)
    first.save_product(BOLT)
    first.save_levels([StockLevel("BOL-0001", Location("B", 2, 3), 7)])
    second = JsonFileBackend(path)
    assert second.list_products() == [BOLT]
    assert second.load_levels() == [StockLevel("BOL-0001", Location("B", 2, 3), 7)]
    assert not (tmp_path / "nested" / "store.json.tmp").exists()
    assert json.loads(path.read_text())["format"] == STORAGE_FORMAT_VERSION


def test_json_backend_rejects_unknown_format(tmp_path):
    path = tmp_path / "store.json"
    path.write_text('{"format": 99}', encoding="utf-8")
    with pytest.raises(BackendError, match="unsupported storage format 99 \\(expected 1\\)"):
        JsonFileBackend(path)


def test_json_backend_rejects_corrupt_file(tmp_path):
    path = tmp_path / "store.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(BackendError, match="corrupt storage file"):
        JsonFileBackend(path)


def test_product_dict_round_trip():
    assert product_from_dict(product_to_dict(BOLT)) == BOLT


def test_create_backend(tmp_path):
    assert isinstance(create_backend("memory"), MemoryBackend)
    json_backend = create_backend("json", path=tmp_path / "s.json")
    assert isinstance(json_backend, JsonFileBackend)
    assert isinstance(json_backend, StorageBackend)
    with pytest.raises(BackendError, match="requires a path"):
        create_backend("json")
    with pytest.raises(BackendError, match="unknown storage backend 'redis'"):
        create_backend("redis")
