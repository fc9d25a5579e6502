"""Column schema and type coercion for raw transaction rows.

Raw CSV cells are always strings.  A :class:`Schema` maps each named column to
a parser that turns the text into a typed Python value, raising
:class:`~ledgerflow.errors.SchemaError` with the column (and, when known, the
line number) if the text cannot be interpreted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerflow.errors import SchemaError
from ledgerflow.core.records import DEFAULT_CURRENCY, UNCATEGORISED, Transaction

DATE_FORMATS: tuple[str, ...] = ("%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y")
THOUSANDS_SEPARATOR = ","

_CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def parse_text(raw: str) -> str:
    """Strip surrounding whitespace from a free-text cell."""
    return raw.strip()


def parse_category(raw: str) -> str:
    """Normalise a category label to lower case without surrounding blanks."""
    return raw.strip().lower()


def parse_decimal(raw: str) -> Decimal:
    """Parse a monetary amount.

    Accepts an optional sign, thousands separators (``1,249.00``) and the
    accounting convention of parentheses for negative numbers (``(35.00)``).
    """
    text = raw.strip()
    if not text:
        raise SchemaError("amount is empty")
    negative = False
    if text.startswith("(") and text.endswith(")"):
        negative = True
        text = text[1:-1].strip()
    text = text.replace(THOUSANDS_SEPARATOR, "")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise SchemaError(f"cannot parse {raw!r} as a decimal amount") from None
    if not value.is_finite():
        raise SchemaError(f"amount must be a finite number, got {raw!r}")
    return -value if negative else value


def parse_date(raw: str, formats: Sequence[str] = DATE_FORMATS) -> date:
    """Parse a date written in any of ``formats`` (ISO first by default)."""
    text = raw.strip()
    for fmt in formats:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    expected = ", ".join(formats)
    raise SchemaError(f"cannot parse {raw!r} as a date (expected one of: {expected})")


def is_currency_code(code: str) -> bool:
    """Return True for a three-letter upper-case ISO 4217 style code."""
    return _CURRENCY_CODE.fullmatch(code) is not None


def parse_currency(raw: str) -> str:
    """Parse a currency code, normalising it to upper case."""
    code = raw.strip().upper()
    if not is_currency_code(code):
        raise SchemaError(f"invalid currency code {raw!r}; expected three letters such as 'EUR'")
    return code


@dataclass(frozen=True)
class Column:
    """A named column with a parser and an optional default for blank cells."""

    name: str
    parser: Callable[[str], Any]
    required: bool = True
    default: Any = None

    def coerce(self, raw: str | None) -> Any:
        """Convert one raw cell to a typed value.

        Blank cells of optional columns yield :attr:`default`; blank cells of
        required columns raise :class:`SchemaError`.
        """
        if raw is None or not raw.strip():
            if self.required:
                raise SchemaError("value is required", column=self.name)
            return self.default
        try:
            return self.parser(raw)
        except SchemaError as exc:
            raise exc.at(column=self.name) from None


@dataclass(frozen=True)
class Schema:
    """An ordered collection of :class:`Column` definitions."""

    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for column in self.columns:
            if column.name in seen:
                raise ValueError(f"duplicate column name {column.name!r} in schema")
            seen.add(column.name)

    @property
    def names(self) -> list[str]:
        """All column names, in declaration order."""
        return [column.name for column in self.columns]

    @property
    def required_names(self) -> list[str]:
        """Names of the columns that must be present and non-blank."""
        return [column.name for column in self.columns if column.required]

    def column(self, name: str) -> Column:
        """Look up a column by name."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"no column named {name!r}; known columns: {', '.join(self.names)}")

    def check_header(self, header: Sequence[str] | None) -> None:
        """Ensure a CSV header contains every required column (case-insensitive)."""
        if not header:
            raise SchemaError("input has no header row")
        present = {name.strip().lower() for name in header if name}
        missing = [name for name in self.required_names if name not in present]
        if missing:
            raise SchemaError(f"missing required column(s): {', '.join(missing)}")

    def coerce_row(self, row: Mapping[str | None, Any], line_no: int | None = None) -> dict[str, Any]:
        """Coerce a raw row (as produced by :class:`csv.DictReader`) to typed values.

        Header names are matched case-insensitively; unknown columns are ignored.
        """
        cells = {key.strip().lower(): value for key, value in row.items() if isinstance(key, str)}
        values: dict[str, Any] = {}
        for column in self.columns:
            try:
                values[column.name] = column.coerce(cells.get(column.name))
            except SchemaError as exc:
                raise exc.at(line_no=line_no) from None
        return values


TRANSACTION_SCHEMA = Schema(
    (
        Column("id", parse_text),
        Column("date", parse_date),
        Column("amount", parse_decimal),
        Column("currency", parse_currency, required=False, default=DEFAULT_CURRENCY),
        Column("description", parse_text, required=False, default=""),
        Column("category", parse_category, required=False, default=UNCATEGORISED),
        Column("account", parse_text, required=False, default=""),
    )
)


def row_to_transaction(values: Mapping[str, Any]) -> Transaction:
    """Build a :class:`Transaction` from values coerced by ``TRANSACTION_SCHEMA``."""
    return Transaction(
        txn_id=values["id"],
        booked_on=values["date"],
        amount=values["amount"],
        currency=values.get("currency") or DEFAULT_CURRENCY,
        description=values.get("description") or "",
        category=values.get("category") or UNCATEGORISED,
        account=values.get("account") or "",
    )
