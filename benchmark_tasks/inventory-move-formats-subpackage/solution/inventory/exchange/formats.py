"""CSV and JSON import/export of stock records.

A stock record describes one SKU in one location together with the product
data needed to create the catalogue entry. The CSV layout is::

    sku,name,location,quantity,unit_cost,unit_price
    BOL-0001,Hex bolt M8 x 40,A-01-01,250,0.12,0.35

Extra columns are ignored; blank lines are skipped. Errors name the row
(the header is row 1) so that a warehouse clerk can fix the file.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, TextIO

from inventory.errors import ImportFormatError, ValidationError
from inventory.models import Location, Product, to_decimal, validate_sku

CSV_COLUMNS = ("sku", "name", "location", "quantity", "unit_cost", "unit_price")


@dataclass(frozen=True)
class StockRecord:
    """One imported or exported line of stock."""

    sku: str
    name: str
    location: Location
    quantity: int
    unit_cost: Decimal
    unit_price: Decimal

    def to_product(self, category: str = "general") -> Product:
        """Build the catalogue :class:`~inventory.models.Product` for this record."""
        return Product(self.sku, self.name, self.unit_cost, self.unit_price, category=category)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly representation (decimals and locations as strings)."""
        return {
            "sku": self.sku,
            "name": self.name,
            "location": self.location.code,
            "quantity": self.quantity,
            "unit_cost": str(self.unit_cost),
            "unit_price": str(self.unit_price),
        }


def _parse_quantity(raw: Any) -> int:
    try:
        quantity = int(str(raw).strip())
    except ValueError:
        raise ValidationError(f"quantity must be a whole number, got {raw!r}") from None
    if quantity < 0:
        raise ValidationError(f"quantity cannot be negative, got {quantity}")
    return quantity


def record_from_mapping(data: dict[str, Any], row: int) -> StockRecord:
    """Build a :class:`StockRecord` from a mapping, reporting errors at ``row``."""
    missing = [column for column in CSV_COLUMNS if data.get(column) in (None, "")]
    if missing:
        raise ImportFormatError(f"missing value(s) for: {', '.join(missing)}", row=row)
    try:
        sku = validate_sku(str(data["sku"]).strip())
        unit_cost = to_decimal(str(data["unit_cost"]).strip(), "unit_cost")
        unit_price = to_decimal(str(data["unit_price"]).strip(), "unit_price")
        if unit_cost < 0 or unit_price < 0:
            raise ValidationError("unit_cost and unit_price cannot be negative")
        name = str(data["name"]).strip()
        if not name:
            raise ValidationError(f"name of {sku} must not be blank")
        return StockRecord(
            sku=sku,
            name=name,
            location=Location.parse(str(data["location"])),
            quantity=_parse_quantity(data["quantity"]),
            unit_cost=unit_cost,
            unit_price=unit_price,
        )
    except ValidationError as exc:
        raise ImportFormatError(str(exc), row=row) from exc


def parse_stock_csv(stream: TextIO) -> list[StockRecord]:
    """Parse stock records from an open CSV text stream."""
    rows = list(csv.reader(stream))
    if not rows:
        raise ImportFormatError("CSV input is empty; expected a header row", row=1)
    header = [cell.strip().lower() for cell in rows[0]]
    missing = [column for column in CSV_COLUMNS if column not in header]
    if missing:
        raise ImportFormatError(f"missing required column(s): {', '.join(missing)}", row=1)
    records: list[StockRecord] = []
    for index in range(1, len(rows)):
        cells = rows[index]
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise ImportFormatError(
                f"expected {len(header)} fields but found {len(cells)}", row=index + 1
            )
        records.append(record_from_mapping(dict(zip(header, cells)), row=index + 1))
    return records


def read_stock_csv(path: str | Path) -> list[StockRecord]:
    """Read stock records from the CSV file at ``path``."""
    with open(path, newline="", encoding="utf-8") as handle:
        return parse_stock_csv(handle)


def write_stock_csv(records: Iterable[StockRecord], stream: TextIO) -> int:
    """Write ``records`` as CSV (with header) to ``stream``; return the row count."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    for record in records:
        data = record.as_dict()
        writer.writerow([data[column] for column in CSV_COLUMNS])
        count += 1
    return count


def dump_stock_csv(records: Iterable[StockRecord]) -> str:
    """Return ``records`` rendered as a CSV string."""
    buffer = io.StringIO()
    write_stock_csv(records, buffer)
    return buffer.getvalue()


def records_to_json(records: Iterable[StockRecord], indent: int | None = 2) -> str:
    """Serialise ``records`` to a JSON array."""
    return json.dumps([record.as_dict() for record in records], indent=indent)


def records_from_json(text: str) -> list[StockRecord]:
    """Parse a JSON array of stock records (as produced by :func:`records_to_json`)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"invalid JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(data, list):
        raise ImportFormatError(f"expected a JSON array of records, got {type(data).__name__}")
    records: list[StockRecord] = []
    for position, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise ImportFormatError(
                f"expected an object, got {type(item).__name__}", row=position
            )
        records.append(record_from_mapping(item, row=position))
    return records
