"""Core domain models: products, storage locations, stock levels and reservations.

The models are plain dataclasses. They validate their own invariants in
``__post_init__`` so that an invalid object can never be constructed, which
keeps the rest of the package free of defensive checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from enum import Enum

from inventory.errors import ValidationError

SKU_PATTERN = re.compile(r"^[A-Z]{3}-\d{4}$")
LOCATION_PATTERN = re.compile(r"^([A-Z])-(\d{2})-(\d{2})$")
MAX_RACK = 99
MAX_SHELF = 99


def validate_sku(sku: str) -> str:
    """Return ``sku`` unchanged if it is well formed, otherwise raise.

    A SKU is three capital letters, a dash and four digits, e.g. ``BOL-0001``.
    """
    if not isinstance(sku, str) or not SKU_PATTERN.match(sku):
        raise ValidationError(
            f"invalid SKU {sku!r}: expected three capital letters, a dash and "
            "four digits (e.g. 'BOL-0001')"
        )
    return sku


def to_decimal(value: Decimal | int | str, field_name: str) -> Decimal:
    """Convert ``value`` to :class:`~decimal.Decimal`, naming the field on failure.

    Floats are accepted but converted through ``str`` so that ``0.1`` becomes
    ``Decimal("0.1")`` rather than its binary approximation.
    """
    try:
        result = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise ValidationError(f"{field_name} must be a decimal number, got {value!r}") from None
    if not result.is_finite():
        raise ValidationError(f"{field_name} must be a finite number, got {value!r}")
    return result


@dataclass(frozen=True)
class Product:
    """A stock-keeping unit in the catalogue.

    ``reorder_threshold`` overrides the warehouse-wide default threshold for
    this product when set.
    """

    sku: str
    name: str
    unit_cost: Decimal
    unit_price: Decimal
    category: str = "general"
    reorder_threshold: int | None = None

    def __post_init__(self) -> None:
        validate_sku(self.sku)
        if not self.name or not self.name.strip():
            raise ValidationError(f"product {self.sku} must have a non-empty name")
        object.__setattr__(self, "unit_cost", to_decimal(self.unit_cost, "unit_cost"))
        object.__setattr__(self, "unit_price", to_decimal(self.unit_price, "unit_price"))
        if self.unit_cost < 0:
            raise ValidationError(f"product {self.sku}: unit_cost cannot be negative")
        if self.unit_price < 0:
            raise ValidationError(f"product {self.sku}: unit_price cannot be negative")
        if self.reorder_threshold is not None and self.reorder_threshold < 0:
            raise ValidationError(
                f"product {self.sku}: reorder_threshold cannot be negative, "
                f"got {self.reorder_threshold}"
            )


@dataclass(frozen=True, order=True)
class Location:
    """A storage bin identified by aisle letter, rack number and shelf number.

    Locations are written as ``AISLE-RACK-SHELF`` with two-digit rack and
    shelf numbers, for example ``B-04-02``. They sort by aisle, then rack,
    then shelf, which matches the walking order through the warehouse.
    """

    aisle: str
    rack: int
    shelf: int

    def __post_init__(self) -> None:
        if len(self.aisle) != 1 or not ("A" <= self.aisle <= "Z"):
            raise ValidationError(f"aisle must be a single capital letter, got {self.aisle!r}")
        if not 1 <= self.rack <= MAX_RACK:
            raise ValidationError(f"rack must be between 1 and {MAX_RACK}, got {self.rack}")
        if not 1 <= self.shelf <= MAX_SHELF:
            raise ValidationError(f"shelf must be between 1 and {MAX_SHELF}, got {self.shelf}")

    @classmethod
    def parse(cls, code: str) -> Location:
        """Parse a location code such as ``"A-01-03"`` (case-insensitive)."""
        match = LOCATION_PATTERN.match(code.strip().upper())
        if match is None:
            raise ValidationError(
                f"invalid location code {code!r}: expected AISLE-RACK-SHELF such as 'A-01-03'"
            )
        aisle, rack, shelf = match.groups()
        return cls(aisle, int(rack), int(shelf))

    @classmethod
    def coerce(cls, value: Location | str) -> Location:
        """Return ``value`` as a :class:`Location`, parsing it if it is a string."""
        if isinstance(value, Location):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        raise ValidationError(
            f"expected a Location or a location code, got {type(value).__name__}"
        )

    @property
    def code(self) -> str:
        """The canonical ``AISLE-RACK-SHELF`` code for this location."""
        return f"{self.aisle}-{self.rack:02d}-{self.shelf:02d}"

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True)
class StockLevel:
    """The on-hand quantity of one SKU in one location."""

    sku: str
    location: Location
    quantity: int


class ReservationStatus(Enum):
    """Lifecycle states of a :class:`Reservation`."""

    ACTIVE = "active"
    RELEASED = "released"
    FULFILLED = "fulfilled"
    EXPIRED = "expired"


@dataclass
class Reservation:
    """Units of a SKU held back for a customer order until shipped or released."""

    reservation_id: str
    sku: str
    quantity: int
    order_ref: str
    created_at: datetime
    expires_at: datetime
    status: ReservationStatus = ReservationStatus.ACTIVE

    @property
    def is_active(self) -> bool:
        """Whether the reservation currently holds stock."""
        return self.status is ReservationStatus.ACTIVE

    def is_expired(self, at: datetime) -> bool:
        """Whether an active reservation has passed its expiry time at ``at``."""
        return self.is_active and at > self.expires_at


@dataclass(frozen=True)
class ReorderRule:
    """An explicit reorder rule for a SKU.

    When on-hand stock falls to ``threshold`` or below, enough units should be
    ordered to bring stock back up to ``target_level``.
    """

    sku: str
    threshold: int
    target_level: int

    def __post_init__(self) -> None:
        validate_sku(self.sku)
        if self.threshold < 0:
            raise ValidationError(f"reorder rule for {self.sku}: threshold cannot be negative")
        if self.target_level <= self.threshold:
            raise ValidationError(
                f"reorder rule for {self.sku}: target_level ({self.target_level}) must be "
                f"greater than threshold ({self.threshold})"
            )
