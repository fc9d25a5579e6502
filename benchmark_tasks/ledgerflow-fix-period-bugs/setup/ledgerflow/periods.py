"""Calendar helpers for month-based reporting periods."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

MONTHS_PER_YEAR = 12

_MONTH_KEY = re.compile(r"(\d{4})-(\d{2})")


@dataclass(frozen=True, order=True)
class Month:
    """A calendar month, ordered chronologically and rendered as ``YYYY-MM``."""

    year: int
    month: int

    def __post_init__(self) -> None:
        if not 1 <= self.month <= MONTHS_PER_YEAR:
            raise ValueError(f"month must be in 1..{MONTHS_PER_YEAR}, got {self.month}")

    @classmethod
    def from_date(cls, day: date) -> Month:
        """The month containing ``day``."""
        return cls(day.year, day.month)

    @classmethod
    def parse(cls, key: str) -> Month:
        """Parse a ``YYYY-MM`` key."""
        match = _MONTH_KEY.fullmatch(key.strip())
        if match is None:
            raise ValueError(f"invalid month key {key!r}; expected YYYY-MM")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def index(self) -> int:
        """Number of months since year 0, useful for month arithmetic."""
        return self.year * MONTHS_PER_YEAR + (self.month - 1)

    def shift(self, months: int) -> Month:
        """The month ``months`` later (or earlier, if negative)."""
        target = self.index + months
        return Month(target // MONTHS_PER_YEAR, target % MONTHS_PER_YEAR + 1)

    @property
    def first_day(self) -> date:
        """The first day of the month."""
        return date(self.year, self.month, 1)

    @property
    def last_day(self) -> date:
        """The last day of the month, accounting for leap years."""
        return date(self.year, self.month, calendar.monthrange(self.year, self.month)[0])

    def contains(self, day: date) -> bool:
        """True when ``day`` falls inside this month."""
        return day.year == self.year and day.month == self.month


def months_between(start: Month, end: Month) -> int:
    """Number of month steps from ``start`` to ``end`` (negative if ``end`` is earlier)."""
    return end.index - start.index


def month_range(start: Month, end: Month) -> list[Month]:
    """All months from ``start`` to ``end``, both inclusive."""
    count = months_between(start, end)
    if count < 1:
        raise ValueError(f"end month {end} is before start month {start}")
    return [start.shift(offset) for offset in range(count)]


def month_key(day: date) -> str:
    """The ``YYYY-MM`` key of the month containing ``day``."""
    return str(Month.from_date(day))
