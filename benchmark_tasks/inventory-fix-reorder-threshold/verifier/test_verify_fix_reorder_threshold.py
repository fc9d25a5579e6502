from inventory.config import Settings, load_settings
from inventory.models import Product
from inventory.reorder import ReorderSuggestion, suggest_reorders
from inventory.service import InventoryService

BOLT = Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35")


def test_settings_default_threshold_is_ten():
    assert Settings().reorder_threshold == 10


def test_code_default_matches_packaged_defaults():
    assert load_settings() == Settings()


def test_suggest_reorders_uses_threshold_ten_by_default():
    assert suggest_reorders([BOLT], {"BOL-0001": 11}) == []
    assert suggest_reorders([BOLT], {"BOL-0001": 10}) == [ReorderSuggestion("BOL-0001", 10, 10, 10)]


def test_service_without_config_file():
    service = InventoryService()
    service.add_product(BOLT)
    service.receive("BOL-0001", 11)
    assert service.reorder_suggestions() == []
