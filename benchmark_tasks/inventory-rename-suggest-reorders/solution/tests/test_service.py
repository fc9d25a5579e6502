import json
from decimal import Decimal
from unittest.mock import patch

import pytest

from inventory import InventoryService, Product, ReorderRule, Settings
from inventory.backends import JsonFileBackend
from inventory.errors import InsufficientStockError, UnknownProductError
from inventory.reorder import ReorderSuggestion


def test_receive_defaults_to_configured_location(service):
    assert service.receive("BOL-0001", 25) == 25
    assert service.ledger.quantity("BOL-0001", "A-01-01") == 25
    assert service.inventory_value() == Decimal("3.00")


def test_receive_unknown_product(service):
    with pytest.raises(UnknownProductError, match="unknown SKU 'NUT-0001'"):
        service.receive("NUT-0001", 1)


def test_ship_returns_fifo_cost(service, clock):
    service.receive("BOL-0001", 10, "A-01-01", unit_cost="0.10")
    service.receive("BOL-0001", 10, "A-01-02", unit_cost="0.20")
    reservation = service.reserve("BOL-0001", 15, "SO-7")
    assert service.ship(reservation.reservation_id) == Decimal("2.00")
    assert service.on_hand() == {"BOL-0001": 5}
    assert service.inventory_value() == Decimal("1.00")


def test_reserve_respects_existing_reservations(service, clock):
    service.receive("BOL-0001", 5)
    service.reserve("BOL-0001", 5, "SO-1")
    with pytest.raises(InsufficientStockError):
        service.reserve("BOL-0001", 1, "SO-2")


def test_quote_includes_tax_and_discount(service):
    assert service.quote("BOL-0001", 100) == Decimal("42.00")
    assert service.quote("BOL-0001", 100, discount_percent=50) == Decimal("21.00")
    cheap = InventoryService(settings=Settings(tax_rate=Decimal("0")))
    cheap.add_product(service.product("BOL-0001"))
    assert cheap.quote("BOL-0001", 100) == Decimal("35.00")


def test_move_between_locations(service):
    service.receive("BOL-0001", 10, "A-01-01")
    service.move("BOL-0001", 4, "A-01-01", "C-01-01")
    assert service.ledger.quantity("BOL-0001", "C-01-01") == 4


def test_reorder_suggestions_use_settings_threshold(bolt):
    service = InventoryService(settings=Settings(reorder_threshold=30))
    service.add_product(bolt)
    service.receive("BOL-0001", 30)
    assert service.reorder_suggestions() == [ReorderSuggestion("BOL-0001", 30, 30, 30)]


def test_reorder_rules_are_passed_through(service):
    service.set_rule(ReorderRule("BOL-0001", threshold=5, target_level=50))
    with patch("inventory.reorder.plan_reorders", return_value=[]) as fake:
        assert service.reorder_suggestions({"BOL-0001": [1]}) == []
    kwargs = fake.call_args.kwargs
    assert kwargs["rules"] == {"BOL-0001": ReorderRule("BOL-0001", 5, 50)}
    assert kwargs["default_threshold"] == 10
    assert kwargs["demand_history"] == {"BOL-0001": [1]}


def test_set_rule_requires_known_product(service):
    with pytest.raises(UnknownProductError):
        service.set_rule(ReorderRule("NUT-0001", threshold=1, target_level=2))


def test_import_sample_csv(sample_csv):
    service = InventoryService()
    assert service.import_csv(sample_csv) == 9
    assert len(service.products()) == 8
    on_hand = service.on_hand()
    assert on_hand["BOL-0001"] == 290
    assert on_hand["SCR-0011"] == 0
    assert service.inventory_value() == Decimal("266.51")


def test_export_records_reflect_current_stock(service):
    service.receive("BOL-0001", 3, "B-01-01")
    service.receive("BOL-0001", 2, "A-01-01")
    records = service.export_records()
    assert [(r.location.code, r.quantity) for r in records] == [("A-01-01", 2), ("B-01-01", 3)]


def test_save_and_restore_with_json_backend(tmp_path, bolt):
    path = tmp_path / "store.json"
    first = InventoryService(backend=JsonFileBackend(path))
    first.add_product(bolt)
    first.receive("BOL-0001", 12, "B-02-01")
    first.save()
    second = InventoryService(backend=JsonFileBackend(path))
    assert second.ledger.quantity("BOL-0001", "B-02-01") == 12
    assert second.inventory_value() == Decimal("1.44")


def test_from_config_file(tmp_path):
    config_path = tmp_path / "site.json"
    data_path = tmp_path / "store.json"
    config_path.write_text(
        json.dumps({"backend": "json", "data_path": str(data_path), "default_location": "D-01-01"}),
        encoding="utf-8",
    )
    service = InventoryService.from_config(config_path, reorder_threshold=4)
    assert isinstance(service.backend, JsonFileBackend)
    assert service.settings.reorder_threshold == 4
    service.add_product(Product("TAP-0300", "Tape", "0.85", "2.20"))
    service.receive("TAP-0300", 1)
    assert service.ledger.quantity("TAP-0300", "D-01-01") == 1
    assert data_path.exists()
