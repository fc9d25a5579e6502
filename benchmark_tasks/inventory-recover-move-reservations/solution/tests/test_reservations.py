from datetime import datetime, timedelta, timezone
from unittest.mock import patch

import pytest

from inventory.errors import InsufficientStockError, ReservationError, ValidationError
from inventory.models import ReservationStatus
from inventory.orders.reservations import ReservationBook
from inventory.stock import StockLedger

SKU = "BOL-0001"
START = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def ledger():
    ledger = StockLedger()
    ledger.receive(SKU, "A-01-01", 8)
    ledger.receive(SKU, "A-01-02", 2)
    return ledger


@pytest.fixture
def book(ledger, clock):
    return ReservationBook(ledger, ttl_minutes=30)


def test_reserve_reduces_availability_not_stock(book, ledger):
    reservation = book.reserve(SKU, 4, "SO-1")
    assert reservation.reservation_id == "RES-00001"
    assert reservation.expires_at == START + timedelta(minutes=30)
    assert book.reserved(SKU) == 4
    assert book.available(SKU) == 6
    assert ledger.quantity(SKU) == 10


def test_reservation_ids_are_sequential(book):
    ids = [book.reserve(SKU, 1, f"SO-{n}").reservation_id for n in range(3)]
    assert ids == ["RES-00001", "RES-00002", "RES-00003"]


def test_cannot_reserve_more_than_available(book):
    book.reserve(SKU, 7, "SO-1")
    with pytest.raises(InsufficientStockError, match="only 3 available"):
        book.reserve(SKU, 4, "SO-2")


def test_release_returns_units(book):
    reservation = book.reserve(SKU, 7, "SO-1")
    book.release(reservation.reservation_id)
    assert reservation.status is ReservationStatus.RELEASED
    assert book.available(SKU) == 10


def test_release_twice_is_an_error(book):
    reservation = book.reserve(SKU, 1, "SO-1")
    book.release(reservation.reservation_id)
    with pytest.raises(ReservationError, match="is released and cannot be released"):
        book.release(reservation.reservation_id)


def test_fulfil_issues_stock_using_pick_plan(book, ledger):
    reservation = book.reserve(SKU, 3, "SO-9")
    plan = book.fulfil(reservation.reservation_id)
    assert [(loc.code, qty) for loc, qty in plan] == [("A-01-02", 2), ("A-01-01", 1)]
    assert ledger.quantity(SKU) == 7
    assert reservation.status is ReservationStatus.FULFILLED
    assert ledger.movements(SKU)[-1].note == "order SO-9"


def test_expired_reservation_cannot_be_fulfilled(book, clock):
    reservation = book.reserve(SKU, 3, "SO-1")
    clock.advance(minutes=30)
    with pytest.raises(ReservationError, match="expired at 2024-03-01T09:30:00"):
        book.fulfil(reservation.reservation_id)
    assert reservation.status is ReservationStatus.EXPIRED


def test_stale_reservations_expire_on_next_reserve(book, clock):
    book.reserve(SKU, 10, "SO-1")
    clock.advance(minutes=31)
    second = book.reserve(SKU, 10, "SO-2")
    assert book.active() == [second]


def test_expire_stale_accepts_explicit_time(ledger):
    with patch("inventory.orders.reservations._now", return_value=START):
        book = ReservationBook(ledger, ttl_minutes=5)
        first = book.reserve(SKU, 1, "SO-1")
    assert book.expire_stale(at=START + timedelta(minutes=4)) == []
    assert book.expire_stale(at=START + timedelta(minutes=5)) == [first]


def test_unknown_reservation(book):
    with pytest.raises(ReservationError, match="unknown reservation 'RES-99999'"):
        book.get("RES-99999")


def test_ttl_must_be_positive(ledger):
    with pytest.raises(ValidationError, match="positive number of minutes"):
        ReservationBook(ledger, ttl_minutes=0)


def test_order_ref_is_required(book):
    with pytest.raises(ValidationError, match="order_ref"):
        book.reserve(SKU, 1, "  ")
