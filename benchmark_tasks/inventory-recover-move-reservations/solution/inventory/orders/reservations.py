"""Reservations hold stock for customer orders until they ship or lapse.

Reserved units remain physically on the shelf (they are still counted by the
:class:`~inventory.stock.StockLedger`) but are no longer *available* for
new orders. Reservations expire after a configurable time-to-live.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

from inventory.config import DEFAULT_RESERVATION_TTL_MINUTES

from inventory.errors import InsufficientStockError, ReservationError, ValidationError
from inventory.models import Location, Reservation, ReservationStatus
from inventory.stock import StockLedger, check_quantity


def _now() -> datetime:
    """Return the current UTC time (a seam for tests to patch)."""
    return datetime.now(timezone.utc)


class ReservationBook:
    """Tracks reservations against the stock held in a :class:`StockLedger`."""

    def __init__(
        self,
        ledger: StockLedger,
        ttl_minutes: int = DEFAULT_RESERVATION_TTL_MINUTES,
        id_prefix: str = "RES",
    ) -> None:
        if ttl_minutes <= 0:
            raise ValidationError(f"reservation ttl must be a positive number of minutes, got {ttl_minutes}")
        self._ledger = ledger
        self._ttl = timedelta(minutes=ttl_minutes)
        self._prefix = id_prefix
        self._reservations: dict[str, Reservation] = {}
        self._counter = itertools.count(1)

    def reserved(self, sku: str) -> int:
        """Units of ``sku`` held by active reservations."""
        return sum(r.quantity for r in self._reservations.values() if r.sku == sku and r.is_active)

    def available(self, sku: str) -> int:
        """Units of ``sku`` on hand and not held by an active reservation."""
        return max(0, self._ledger.quantity(sku) - self.reserved(sku))

    def get(self, reservation_id: str) -> Reservation:
        """Return the reservation with the given id."""
        try:
            return self._reservations[reservation_id]
        except KeyError:
            raise ReservationError(f"unknown reservation {reservation_id!r}") from None

    def active(self, sku: str | None = None) -> list[Reservation]:
        """Active reservations in creation order, optionally for one SKU."""
        return [
            r for r in self._reservations.values()
            if r.is_active and (sku is None or r.sku == sku)
        ]

    def reserve(self, sku: str, quantity: int, order_ref: str) -> Reservation:
        """Hold ``quantity`` units of ``sku`` for ``order_ref``."""
        check_quantity(quantity)
        if not order_ref.strip():
            raise ValidationError("order_ref must not be empty")
        self.expire_stale()
        available = self.available(sku)
        if quantity > available:
            raise InsufficientStockError(sku, quantity, available)
        created = _now()
        reservation = Reservation(
            reservation_id=f"{self._prefix}-{next(self._counter):05d}",
            sku=sku,
            quantity=quantity,
            order_ref=order_ref,
            created_at=created,
            expires_at=created + self._ttl,
        )
        self._reservations[reservation.reservation_id] = reservation
        return reservation

    def release(self, reservation_id: str) -> Reservation:
        """Cancel an active reservation, making its units available again."""
        reservation = self._require_active(reservation_id, "released")
        reservation.status = ReservationStatus.RELEASED
        return reservation

    def fulfil(self, reservation_id: str) -> list[tuple[Location, int]]:
        """Pick and issue the reserved units; return the pick plan that was used."""
        reservation = self._require_active(reservation_id, "fulfilled")
        if reservation.is_expired(_now()):
            reservation.status = ReservationStatus.EXPIRED
            raise ReservationError(
                f"reservation {reservation_id} expired at {reservation.expires_at.isoformat()}"
            )
        plan = self._ledger.pick_plan(reservation.sku, reservation.quantity)
        for location, quantity in plan:
            self._ledger.issue(
                reservation.sku, location, quantity, note=f"order {reservation.order_ref}"
            )
        reservation.status = ReservationStatus.FULFILLED
        return plan

    def expire_stale(self, at: datetime | None = None) -> list[Reservation]:
        """Mark reservations past their expiry time as expired and return them."""
        moment = at or _now()
        expired = [r for r in self._reservations.values() if r.is_expired(moment)]
        for reservation in expired:
            reservation.status = ReservationStatus.EXPIRED
        return expired

    def _require_active(self, reservation_id: str, action: str) -> Reservation:
        reservation = self.get(reservation_id)
        if not reservation.is_active:
            raise ReservationError(
                f"reservation {reservation_id} is {reservation.status.value} and cannot be {action}"
            )
        return reservation
