from pathlib import Path
from unittest.mock import patch

import inventory.reorder as reorder
from inventory.models import Product
from inventory.reorder import ReorderSuggestion
from inventory.service import InventoryService

BOLT = Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35")


def test_new_name_works():
    assert reorder.plan_reorders([BOLT], {"BOL-0001": 10}) == [ReorderSuggestion("BOL-0001", 10, 10, 10)]
    assert reorder.plan_reorders([BOLT], {"BOL-0001": 11}) == []


def test_old_name_is_gone():
    assert not hasattr(reorder, "suggest_reorders")


def test_service_calls_the_renamed_function():
    service = InventoryService()
    service.add_product(BOLT)
    with patch("inventory.reorder.plan_reorders", return_value=["sentinel"]) as fake:
        assert service.reorder_suggestions({"BOL-0001": [2]}) == ["sentinel"]
    assert fake.call_args.kwargs["demand_history"] == {"BOL-0001": [2]}


def test_readme_uses_new_name():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert "plan_reorders" in readme
    assert "suggest_reorders" not in readme
