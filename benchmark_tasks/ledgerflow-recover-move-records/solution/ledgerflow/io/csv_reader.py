"""Reading transaction CSV files into :class:`~ledgerflow.records.Transaction` records.

Rows that fail schema coercion are collected as :class:`RowError` entries
(with their line number) instead of aborting the whole read, unless
``strict=True`` is requested.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..errors import LedgerError, SchemaError
from ledgerflow.core.records import Transaction
from ..schema import TRANSACTION_SCHEMA, Schema, row_to_transaction

DEFAULT_DELIMITER = ","
DEFAULT_ENCODING = "utf-8-sig"  # tolerate the BOM that spreadsheet exports add


@dataclass(frozen=True)
class RowError:
    """A data row that could not be converted into a transaction."""

    line_no: int
    reason: str
    column: str | None = None

    def __str__(self) -> str:
        if self.column is None:
            return f"line {self.line_no}: {self.reason}"
        return f"line {self.line_no}, column {self.column!r}: {self.reason}"


@dataclass
class ReadResult:
    """Transactions read from a file plus the rows that were skipped."""

    transactions: list[Transaction] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every data row was read successfully."""
        return not self.errors


def iter_rows(
    stream: TextIO, *, schema: Schema = TRANSACTION_SCHEMA, delimiter: str = DEFAULT_DELIMITER
) -> Iterator[tuple[int, dict[str | None, str | None]]]:
    """Yield ``(line_no, raw_row)`` for each non-empty data row of a CSV stream.

    ``line_no`` is the physical line on which the row ends, as reported by the
    :mod:`csv` reader, so it stays correct around blank lines.
    """
    reader = csv.DictReader(stream, delimiter=delimiter)
    schema.check_header(reader.fieldnames)
    for row in reader:
        if not any((value or "").strip() for key, value in row.items() if key is not None):
            continue
        yield reader.line_num, row


def parse_stream(
    stream: TextIO,
    *,
    schema: Schema = TRANSACTION_SCHEMA,
    delimiter: str = DEFAULT_DELIMITER,
    strict: bool = False,
) -> ReadResult:
    """Parse transactions from an open text stream."""
    result = ReadResult()
    for line_no, row in iter_rows(stream, schema=schema, delimiter=delimiter):
        try:
            values = schema.coerce_row(row, line_no=line_no)
        except SchemaError as exc:
            if strict:
                raise
            result.errors.append(RowError(line_no, exc.reason, exc.column))
            continue
        result.transactions.append(row_to_transaction(values))
    return result


def read_transactions(
    path: str | Path,
    *,
    schema: Schema = TRANSACTION_SCHEMA,
    delimiter: str = DEFAULT_DELIMITER,
    encoding: str = DEFAULT_ENCODING,
    strict: bool = False,
) -> ReadResult:
    """Read a transaction CSV file from ``path``."""
    source = Path(path)
    if not source.is_file():
        raise LedgerError(f"input file not found: {source}")
    with source.open(newline="", encoding=encoding) as handle:
        return parse_stream(handle, schema=schema, delimiter=delimiter, strict=strict)


def read_transactions_from_string(
    text: str,
    *,
    schema: Schema = TRANSACTION_SCHEMA,
    delimiter: str = DEFAULT_DELIMITER,
    strict: bool = False,
) -> ReadResult:
    """Parse transactions from CSV text held in memory."""
    return parse_stream(io.StringIO(text, newline=""), schema=schema, delimiter=delimiter, strict=strict)
