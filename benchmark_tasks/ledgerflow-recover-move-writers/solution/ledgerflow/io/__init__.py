"""Input and output: reading transaction CSVs and writing cleaned data and summaries."""

from .csv_reader import (
    DEFAULT_DELIMITER,
    ReadResult,
    RowError,
    read_transactions,
    read_transactions_from_string,
)
from ledgerflow.reporting.writers import render_month_table, summary_payload, write_summary_json, write_transactions_csv

__all__ = [
    "DEFAULT_DELIMITER",
    "ReadResult",
    "RowError",
    "read_transactions",
    "read_transactions_from_string",
    "render_month_table",
    "summary_payload",
    "write_summary_json",
    "write_transactions_csv",
]
