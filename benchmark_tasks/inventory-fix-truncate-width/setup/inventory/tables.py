"""Plain-text table rendering used by the stock report."""

from __future__ import annotations

from typing import Sequence

COLUMN_SEPARATOR = "  "
ELLIPSIS = "..."


def truncate(text: str, width: int) -> str:
    """Shorten ``text`` to at most ``width`` characters, marking the cut with ``...``."""
    if width < 0:
        raise ValueError(f"width cannot be negative, got {width}")
    if len(text) < width:
        return text
    if width <= len(ELLIPSIS):
        return text[:width]
    return text[: width - 2] + ELLIPSIS


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """Width of each column: the longest cell or header in that column."""
    widths = [len(header) for header in headers]
    for row_number in range(len(rows)):
        row = rows[row_number]
        if len(row) != len(headers):
            raise ValueError(
                f"row {row_number + 1} has {len(row)} cells but the table has "
                f"{len(headers)} columns"
            )
        for column in range(len(row)):
            widths[column] = max(widths[column], len(row[column]))
    return widths


def format_row(cells: Sequence[str], widths: Sequence[int], align: str) -> str:
    """Pad each cell to its column width; ``align`` holds ``l``/``r`` per column."""
    parts = []
    for column in range(len(cells)):
        if align[column] == "r":
            parts.append(cells[column].rjust(widths[column]))
        else:
            parts.append(cells[column].ljust(widths[column]))
    return COLUMN_SEPARATOR.join(parts).rstrip()


def format_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    align: str | None = None,
) -> str:
    """Render ``rows`` under ``headers`` with a dashed rule below the header.

    ``align`` is a string with one ``l`` (left) or ``r`` (right) per column;
    all columns are left-aligned by default.
    """
    if align is None:
        align = "l" * len(headers)
    if len(align) != len(headers) or set(align) - {"l", "r"}:
        raise ValueError(
            f"align must have one 'l' or 'r' per column ({len(headers)}), got {align!r}"
        )
    widths = column_widths(headers, rows)
    lines = [
        format_row(headers, widths, align),
        COLUMN_SEPARATOR.join("-" * width for width in widths),
    ]
    lines.extend(format_row(row, widths, align) for row in rows)
    return "\n".join(lines)
