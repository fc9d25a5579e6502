from datetime import date

import pytest

from inventory.errors import ValidationError
from inventory.models import Product, ReorderRule
from inventory.reorder import ReorderSuggestion, suggest_reorders
from inventory.report import render_report, summarize
from inventory.service import InventoryService

BOLT = Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35")


def test_safety_stock_raises_demand_based_point():
    history = {"BOL-0001": [5] * 14}
    suggestions = suggest_reorders([BOLT], {"BOL-0001": 30}, history, safety_stock=6)
    assert suggestions == [ReorderSuggestion("BOL-0001", 30, 41, 52)]


def test_safety_stock_without_demand_can_exceed_threshold():
    assert suggest_reorders([BOLT], {"BOL-0001": 12}, safety_stock=15) == [
        ReorderSuggestion("BOL-0001", 12, 15, 18)
    ]
    assert suggest_reorders([BOLT], {"BOL-0001": 12}, safety_stock=4) == []


def test_default_is_no_safety_stock():
    assert suggest_reorders([BOLT], {"BOL-0001": 12}) == []


def test_explicit_rules_ignore_safety_stock():
    rules = {"BOL-0001": ReorderRule("BOL-0001", threshold=40, target_level=200)}
    assert suggest_reorders([BOLT], {"BOL-0001": 40}, rules=rules, safety_stock=100) == [
        ReorderSuggestion("BOL-0001", 40, 40, 160)
    ]


def test_negative_safety_stock_is_rejected():
    with pytest.raises(ValidationError):
        suggest_reorders([BOLT], {"BOL-0001": 1}, safety_stock=-1)


@pytest.fixture
def service():
    svc = InventoryService()
    svc.add_product(BOLT)
    svc.receive("BOL-0001", 12, "A-01-01")
    return svc


def test_service_passes_safety_stock(service):
    assert service.reorder_suggestions() == []
    assert service.reorder_suggestions(safety_stock=15) == [ReorderSuggestion("BOL-0001", 12, 15, 18)]
    assert service.reorder_suggestions({"BOL-0001": [1] * 14}, safety_stock=10) == [
        ReorderSuggestion("BOL-0001", 12, 17, 22)
    ]


def test_summary_and_report_pass_safety_stock(service):
    assert summarize(service).low_stock == ()
    assert summarize(service, safety_stock=15).low_stock == ("BOL-0001",)
    text = render_report(service, as_of=date(2024, 3, 1), safety_stock=15)
    assert "Reorder needed (1):" in text
    assert text.splitlines()[-1].split() == ["BOL-0001", "12", "15", "18"]
    assert render_report(service, as_of=date(2024, 3, 1)).endswith("No reorders needed.\n")
