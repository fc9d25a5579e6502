"""Plane geometry."""


def split_cells(row: str) -> list[str]:
    r"""Split a row on \t characters."""
    return row.split("\t")
