"""Input and output: reading transaction CSVs and writing cleaned data and summaries."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..errors import LedgerError
from .csv_reader import (
    DEFAULT_DELIMITER,
    ReadResult,
    RowError,
    read_transactions,
    read_transactions_from_string,
)
from .writers import render_month_table, summary_payload, write_summary_json, write_transactions_csv


#: Input formats and the module of this package that reads each of them.  Every reader
#: module provides ``read_transactions(path, **options) -> ReadResult``.
READER_MODULES: dict[str, str] = {"csv": "csv_reader"}


def reader_for(fmt: str) -> Callable[..., ReadResult]:
    """The ``read_transactions`` function of the reader registered for ``fmt`` (e.g. ``"csv"``)."""
    try:
        module_name = READER_MODULES[fmt.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(READER_MODULES))
        raise LedgerError(f"unsupported input format {fmt!r} (known: {known})") from None
    module = importlib.import_module(__name__ + "." + module_name)
    return module.read_transactions


__all__ = [
    "DEFAULT_DELIMITER",
    "READER_MODULES",
    "ReadResult",
    "RowError",
    "read_transactions",
    "read_transactions_from_string",
    "reader_for",
    "render_month_table",
    "summary_payload",
    "write_summary_json",
    "write_transactions_csv",
]
