import json

import pytest

from inventory.config import Settings, load_settings
from inventory.errors import ConfigError
from inventory.models import Product
from inventory.service import InventoryService

BOLT = Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35")
HISTORY = {"BOL-0001": [5] * 14}


def test_default_is_seven_days():
    assert Settings().lead_time_days == 7
    assert load_settings().lead_time_days == 7


def test_overrides_and_user_file(tmp_path):
    assert load_settings(overrides={"lead_time_days": 14}).lead_time_days == 14
    assert load_settings(overrides={"lead_time_days": 0}).lead_time_days == 0
    path = tmp_path / "site.json"
    path.write_text(json.dumps({"lead_time_days": 3}), encoding="utf-8")
    assert load_settings(path).lead_time_days == 3


@pytest.mark.parametrize("value", [-1, "7", 2.5, True, None])
def test_invalid_values_raise_config_error(value):
    with pytest.raises(ConfigError, match="lead_time_days"):
        load_settings(overrides={"lead_time_days": value})


def test_service_uses_configured_lead_time():
    service = InventoryService(settings=Settings(lead_time_days=14))
    service.add_product(BOLT)
    service.receive("BOL-0001", 30)
    [suggestion] = service.reorder_suggestions(HISTORY)
    assert suggestion.reorder_point == 70
    assert suggestion.order_quantity == 110


def test_from_config_override():
    service = InventoryService.from_config(lead_time_days=3)
    service.add_product(BOLT)
    service.receive("BOL-0001", 14)
    [suggestion] = service.reorder_suggestions(HISTORY)
    assert suggestion.reorder_point == 15


def test_default_service_behaviour_unchanged():
    service = InventoryService()
    service.add_product(BOLT)
    service.receive("BOL-0001", 30)
    [suggestion] = service.reorder_suggestions(HISTORY)
    assert suggestion.reorder_point == 35
