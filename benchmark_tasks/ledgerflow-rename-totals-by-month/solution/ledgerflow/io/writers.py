"""Writers for cleaned transaction CSVs, JSON summaries and plain-text tables."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..aggregate import (
    Totals,
    monthly_totals,
    overall_totals,
    require_single_currency,
    top_categories,
    totals_by_category,
)
from ..errors import LedgerError
from ..records import DEFAULT_CURRENCY, Transaction, sorted_by_date
from .csv_reader import DEFAULT_DELIMITER

OUTPUT_COLUMNS: tuple[str, ...] = (
    "id",
    "date",
    "amount",
    "currency",
    "description",
    "category",
    "account",
)
JSON_INDENT = 2
SUMMARY_VERSION = 1
TABLE_HEADERS: tuple[str, ...] = ("month", "count", "income", "spending", "net")
COLUMN_GAP = "  "


def write_transactions_csv(
    path: str | Path,
    transactions: Iterable[Transaction],
    *,
    delimiter: str = DEFAULT_DELIMITER,
) -> int:
    """Write transactions (chronologically) to a CSV file; return the number of rows."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=OUTPUT_COLUMNS, delimiter=delimiter)
        writer.writeheader()
        for txn in sorted_by_date(transactions):
            writer.writerow(txn.to_row())
            written += 1
    return written


def _utcnow() -> datetime:
    """Current UTC time; a separate function so tests can pin it."""
    return datetime.now(timezone.utc)


def summary_payload(
    transactions: Iterable[Transaction],
    *,
    currency: str | None = None,
    top_n: int = 3,
) -> dict[str, Any]:
    """Build the JSON-serialisable summary document for a batch of transactions."""
    batch = list(transactions)
    found = require_single_currency(batch)
    if currency is None:
        currency = found or DEFAULT_CURRENCY
    elif found is not None and found != currency:
        raise LedgerError(f"summary requested in {currency} but transactions are in {found}")
    return {
        "version": SUMMARY_VERSION,
        "generated_at": _utcnow().isoformat(timespec="seconds"),
        "currency": currency,
        "transactions": len(batch),
        "totals": overall_totals(batch).as_dict(),
        "by_month": {key: totals.as_dict() for key, totals in monthly_totals(batch).items()},
        "by_category": {key: totals.as_dict() for key, totals in totals_by_category(batch).items()},
        "top_spending": [
            {"category": name, "spending": str(amount)}
            for name, amount in top_categories(batch, top_n)
        ],
    }


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serialisable")


def write_summary_json(path: str | Path, payload: Mapping[str, Any]) -> None:
    """Write a summary document as indented JSON with a trailing newline."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=JSON_INDENT, default=_json_default)
    target.write_text(text + "\n", encoding="utf-8")


def render_month_table(totals: Mapping[str, Totals]) -> str:
    """Render monthly totals as an aligned plain-text table.

    The month column is left-aligned, numeric columns are right-aligned and a
    dashed rule separates the header from the data.
    """
    rows: list[tuple[str, ...]] = [TABLE_HEADERS]
    for key, month_totals in totals.items():
        values = month_totals.as_dict()
        rows.append(
            (key, str(values["count"]), str(values["income"]), str(values["spending"]), str(values["net"]))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_HEADERS))]
    lines: list[str] = []
    for index, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])]
        cells.extend(row[i].rjust(widths[i]) for i in range(1, len(row)))
        lines.append(COLUMN_GAP.join(cells).rstrip())
        if index == 0:
            lines.append(COLUMN_GAP.join("-" * width for width in widths))
    return "\n".join(lines)
