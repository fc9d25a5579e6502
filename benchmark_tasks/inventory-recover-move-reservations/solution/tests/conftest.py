"""Shared fixtures for the inventory test suite."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from unittest.mock import patch

import pytest

from inventory.models import Product
from inventory.service import InventoryService

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


class FakeClock:
    """A callable returning a controllable UTC time."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def sample_csv() -> Path:
    """Path to the sample stock file shipped with the project."""
    return DATA_DIR / "sample_stock.csv"


@pytest.fixture
def clock():
    """Freeze the reservation clock at 2024-03-01 09:00 UTC."""
    fake = FakeClock(datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc))
    with patch("inventory.orders.reservations._now", fake):
        yield fake


@pytest.fixture
def bolt() -> Product:
    return Product("BOL-0001", "Hex bolt M8 x 40", "0.12", "0.35")


@pytest.fixture
def service(bolt: Product) -> InventoryService:
    """A memory-backed service with one product and no stock."""
    svc = InventoryService()
    svc.add_product(bolt)
    return svc
