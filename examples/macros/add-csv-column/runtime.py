"""add_csv_column: add a column with a default value to a CSV data file."""

from __future__ import annotations

import csv
import io

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import test_problems
from pytest_granularity.macros.kit import existing_file


def _read(ctx: MacroContext) -> tuple[list[list[str]], str]:
    with ctx.path(ctx.args["file"]).open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    ending = "\r\n" if "\r\n" in text else "\n"
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=ctx.args.get("delimiter", ",")))
    return rows, ending


def preconditions(ctx: MacroContext) -> list[str]:
    rel, column = ctx.args["file"], ctx.args["column"]
    path, reasons = existing_file(ctx, rel)
    if path is None:
        return reasons
    try:
        rows, _ = _read(ctx)
    except (csv.Error, UnicodeDecodeError) as exc:
        return [f"{rel} is not a readable CSV file ({exc})"]
    if not rows or not rows[0]:
        return [f"{rel} has no header row"]
    if column in rows[0]:
        reasons.append(f"{rel} already has a column {column!r}")
    ragged = [i + 1 for i, row in enumerate(rows[1:], 1) if row and len(row) != len(rows[0])]
    if ragged:
        reasons.append(f"rows {ragged[:5]} of {rel} do not have {len(rows[0])} fields")
    return reasons


def run(ctx: MacroContext) -> str:
    rel, column, default = ctx.args["file"], ctx.args["column"], ctx.args["default"]
    rows, ending = _read(ctx)
    if column in rows[0]:
        raise MacroError(f"{rel} already has a column {column!r}")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=ctx.args.get("delimiter", ","), lineterminator=ending)
    writer.writerow([*rows[0], column])
    count = 0
    for row in rows[1:]:
        if row:
            writer.writerow([*row, default])
            count += 1
    with ctx.path(rel).open("w", encoding="utf-8", newline="") as handle:
        handle.write(out.getvalue())
    return f"added column {column!r} (default {default!r}) to {rel}: {count} row(s)"


def validate(ctx: MacroContext) -> list[str]:
    rel, column = ctx.args["file"], ctx.args["column"]
    rows, _ = _read(ctx)
    if not rows or rows[0].count(column) != 1:
        return [f"the header of {rel} does not have {column!r} exactly once"]
    short = [i + 1 for i, row in enumerate(rows[1:], 1) if row and len(row) != len(rows[0])]
    if short:
        return [f"rows {short[:5]} of {rel} do not have {len(rows[0])} fields"]
    return test_problems(ctx)
