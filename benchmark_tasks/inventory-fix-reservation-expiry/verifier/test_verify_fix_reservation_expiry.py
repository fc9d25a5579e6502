from datetime import datetime, timedelta, timezone
from unittest.mock import patch

import pytest

from inventory.errors import ReservationError
from inventory.models import Reservation, ReservationStatus
from inventory.reservations import ReservationBook
from inventory.stock import StockLedger

START = datetime(2024, 5, 6, 14, 0, tzinfo=timezone.utc)


def make(minutes=10):
    return Reservation("RES-1", "BOL-0001", 2, "SO-1", START, START + timedelta(minutes=minutes))


def test_expired_exactly_at_expiry_time():
    reservation = make()
    assert reservation.is_expired(START + timedelta(minutes=10))
    assert reservation.is_expired(START + timedelta(minutes=11))
    assert not reservation.is_expired(START + timedelta(minutes=10) - timedelta(microseconds=1))


def test_inactive_reservation_never_expires():
    reservation = make()
    reservation.status = ReservationStatus.FULFILLED
    assert not reservation.is_expired(START + timedelta(days=1))


def test_fulfil_at_the_expiry_instant_is_refused():
    ledger = StockLedger()
    ledger.receive("BOL-0001", "A-01-01", 5)
    with patch("inventory.reservations._now", return_value=START):
        book = ReservationBook(ledger, ttl_minutes=15)
        reservation = book.reserve("BOL-0001", 2, "SO-1")
    with patch("inventory.reservations._now", return_value=START + timedelta(minutes=15)):
        with pytest.raises(ReservationError, match="expired"):
            book.fulfil(reservation.reservation_id)
    assert reservation.status is ReservationStatus.EXPIRED
    assert ledger.quantity("BOL-0001") == 5


def test_expire_stale_at_expiry_instant():
    ledger = StockLedger()
    ledger.receive("BOL-0001", "A-01-01", 5)
    with patch("inventory.reservations._now", return_value=START):
        book = ReservationBook(ledger, ttl_minutes=15)
        reservation = book.reserve("BOL-0001", 2, "SO-1")
    assert book.expire_stale(at=START + timedelta(minutes=15)) == [reservation]
    assert book.available("BOL-0001") == 5
