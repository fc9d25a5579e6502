"""Sales reports as JSON."""

from dataclasses import asdict, dataclass
import json


@dataclass
class Row:
    region: str
    total: int


def to_json(rows: list[Row]) -> str:
    return json.dumps([asdict(row) for row in rows], sort_keys=True)
