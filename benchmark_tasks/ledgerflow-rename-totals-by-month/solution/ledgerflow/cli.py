"""Command-line interface: ``python -m ledgerflow INPUT [--config FILE] [--out FILE] [--summary FILE]``.

Prints a monthly table to stdout and any problems to stderr.  The exit code is
0 on success, 1 when some rows were unreadable or invalid, and 2 on failure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import ledgerflow.aggregate
from ledgerflow.config import LedgerConfig, load_config
from ledgerflow.errors import LedgerError
from ledgerflow.io.writers import render_month_table
from ledgerflow.pipeline import run_file

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_FAILURE = 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser used by :func:`main`."""
    parser = argparse.ArgumentParser(
        prog="ledgerflow",
        description="Clean, convert and summarise a CSV of bank transactions.",
    )
    parser.add_argument("input", help="transaction CSV to read")
    parser.add_argument("--config", help="JSON configuration file (rates, category rules)")
    parser.add_argument("--out", help="write the cleaned transactions to this CSV file")
    parser.add_argument("--summary", help="write a JSON summary to this file")
    parser.add_argument("--strict", action="store_true", help="abort on the first unreadable row")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        config = load_config(args.config) if args.config else LedgerConfig()
        result = run_file(
            args.input,
            config,
            output_csv=args.out,
            summary_json=args.summary,
            strict=args.strict,
        )
    except LedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILURE

    print(render_month_table(ledgerflow.aggregate.monthly_totals(result.transactions)))
    for row_error in result.row_errors:
        print(f"skipped {row_error}", file=sys.stderr)
    report = result.context.report
    if report is not None and report.issues:
        print(report.summary(), file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_INVALID
