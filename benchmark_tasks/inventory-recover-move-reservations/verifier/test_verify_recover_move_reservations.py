import importlib
import importlib.util
from datetime import datetime, timedelta, timezone
from unittest.mock import patch

import pytest

from inventory.errors import ReservationError
from inventory.models import Product
from inventory.service import InventoryService

START = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_new_module_works_with_its_clock_seam():
    module = importlib.import_module("inventory.orders.reservations")
    from inventory.stock import StockLedger

    ledger = StockLedger()
    ledger.receive("BOL-0001", "A-01-01", 5)
    with patch("inventory.orders.reservations._now", return_value=START):
        book = module.ReservationBook(ledger, ttl_minutes=10)
        reservation = book.reserve("BOL-0001", 2, "SO-1")
    assert reservation.expires_at == START + timedelta(minutes=10)
    with patch("inventory.orders.reservations._now", return_value=START + timedelta(minutes=10)):
        with pytest.raises(ReservationError, match="expired"):
            book.fulfil(reservation.reservation_id)


def test_old_module_is_gone():
    assert importlib.util.find_spec("inventory.reservations") is None


def test_service_uses_the_moved_book():
    module = importlib.import_module("inventory.orders.reservations")
    service = InventoryService()
    assert isinstance(service.reservations, module.ReservationBook)
    service.add_product(Product("BOL-0001", "Hex bolt", "0.12", "0.35"))
    service.receive("BOL-0001", 5)
    reservation = service.reserve("BOL-0001", 2, "SO-1")
    assert service.ship(reservation.reservation_id) > 0
