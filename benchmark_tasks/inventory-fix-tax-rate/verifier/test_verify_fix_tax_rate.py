from decimal import Decimal

from inventory import pricing
from inventory.config import Settings, load_settings
from inventory.models import Product
from inventory.service import InventoryService


def test_pricing_default_rate():
    assert pricing.DEFAULT_TAX_RATE == Decimal("0.20")
    assert pricing.gross_price("10.00") == Decimal("12.00")


def test_settings_default_rate():
    assert Settings().tax_rate == Decimal("0.20")


def test_packaged_defaults_rate():
    assert load_settings().tax_rate == Decimal("0.20")


def test_quotes_use_twenty_percent():
    for service in (InventoryService(), InventoryService.from_config()):
        service.add_product(Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35"))
        assert service.quote("BOL-0001", 100) == Decimal("42.00")
