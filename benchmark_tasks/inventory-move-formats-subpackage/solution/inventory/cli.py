"""Command line interface: ``python -m inventory.cli COMMAND ...``.

Commands:

``report CSV``
    Import ``CSV`` and print the stock report.
``export CSV --format json``
    Import ``CSV`` and print its stock records as JSON (or normalised CSV).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from typing import Sequence, TextIO

from .errors import InventoryError
from .exchange.formats import dump_stock_csv, records_to_json
from .report import render_report
from .service import InventoryService


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser for the ``inventory`` command."""
    parser = argparse.ArgumentParser(prog="inventory", description="Warehouse inventory tools")
    parser.add_argument("--config", help="path to a JSON settings file")
    commands = parser.add_subparsers(dest="command", required=True)

    report = commands.add_parser("report", help="print a stock report for a CSV file")
    report.add_argument("csv", help="stock CSV file to import")
    report.add_argument("--as-of", type=date.fromisoformat, help="report date (YYYY-MM-DD)")

    export = commands.add_parser("export", help="convert a stock CSV file")
    export.add_argument("csv", help="stock CSV file to import")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the CLI and return a process exit code."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        service = InventoryService.from_config(args.config)
        service.import_csv(args.csv)
        if args.command == "report":
            out.write(render_report(service, as_of=args.as_of))
        else:
            records = service.export_records()
            text = records_to_json(records) + "\n" if args.format == "json" else dump_stock_csv(records)
            out.write(text)
    except (InventoryError, OSError) as exc:
        print(f"inventory: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
