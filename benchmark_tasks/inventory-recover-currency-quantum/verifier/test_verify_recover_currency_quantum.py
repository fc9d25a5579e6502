from decimal import Decimal

from inventory import pricing
from inventory.service import InventoryService


def test_round_money_to_cents():
    assert pricing.round_money("2.345") == Decimal("2.35")
    assert pricing.round_money("2.344") == Decimal("2.34")
    assert pricing.round_money(3) == Decimal("3.00")
    assert str(pricing.round_money("0.125")) == "0.13"


def test_prices_and_totals_keep_cents():
    assert pricing.gross_price("0.35", Decimal("0.07")) == Decimal("0.37")
    assert pricing.line_total("7.90", 3, discount_percent=10) == Decimal("21.33")


def test_fifo_valuation_keeps_cents():
    fifo = pricing.FifoValuation()
    fifo.receive("BOL-0001", 1, "1.00")
    fifo.receive("BOL-0001", 2, "2.00")
    assert fifo.average_cost("BOL-0001") == Decimal("1.67")


def test_sample_stock_value():
    service = InventoryService()
    service.import_csv("data/sample_stock.csv")
    assert service.inventory_value() == Decimal("266.51")
