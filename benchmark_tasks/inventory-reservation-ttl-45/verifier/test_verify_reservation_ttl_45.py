import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from unittest.mock import patch

from inventory.config import Settings, load_settings
from inventory.models import Product
from inventory.reservations import ReservationBook
from inventory.service import InventoryService
from inventory.stock import StockLedger

START = datetime(2024, 5, 6, 8, 0, tzinfo=timezone.utc)


def test_settings_default_ttl():
    assert Settings().reservation_ttl_minutes == 45
    assert load_settings().reservation_ttl_minutes == 45


def test_reservation_book_default_ttl():
    ledger = StockLedger()
    ledger.receive("BOL-0001", "A-01-01", 3)
    with patch("inventory.reservations._now", return_value=START):
        reservation = ReservationBook(ledger).reserve("BOL-0001", 1, "SO-1")
    assert reservation.expires_at - reservation.created_at == timedelta(minutes=45)


def test_service_from_packaged_config():
    service = InventoryService.from_config()
    service.add_product(Product("BOL-0001", "Hex bolt", "0.12", "0.35"))
    service.receive("BOL-0001", 3)
    with patch("inventory.reservations._now", return_value=START):
        reservation = service.reserve("BOL-0001", 1, "SO-1")
    assert reservation.expires_at == START + timedelta(minutes=45)


def test_readme_documents_new_default():
    rows = [l for l in Path("README.md").read_text(encoding="utf-8").splitlines() if "reservation_ttl_minutes" in l]
    assert rows and all(re.search(r"\b45\b", row) and not re.search(r"\b30\b", row) for row in rows)
