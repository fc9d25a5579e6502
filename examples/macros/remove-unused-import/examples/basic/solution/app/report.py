"""Plain-text reports, one JSON object per line."""

import json
from typing import Iterable


def render(rows: Iterable[dict]) -> str:
    return "\n".join(json.dumps(row, sort_keys=True) for row in rows)
