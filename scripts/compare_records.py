"""Compare the run records of two reports field for field, timings aside.

Usage: python scripts/compare_records.py A.jsonl B.jsonl [--show N]

A and B are the run records that ``--granularity-report=OUT.json`` writes beside the summaries
(``OUT.jsonl``). Runs are matched by task, policy, fault, epoch and seed. Timings (``phases`` and
every ``*seconds`` field, at any depth) differ from run to run on any machine, so they are left
out; every other field must be equal for two runs of the same code in equivalent environments
(two pytest releases, two Pythons). Prints how many records differ and on which fields, and
exits 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

KEY = ("task", "policy", "fault", "epoch", "seed")


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "phases" and not k.endswith("seconds")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def records(path: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    runs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    keyed = {tuple(run.get(k) for k in KEY): without_timings(run) for run in runs}
    if len(keyed) != len(runs):
        sys.exit(f"{path}: {len(runs) - len(keyed)} records share a key {KEY}")
    return keyed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print the first N differing runs' fields")
    args = parser.parse_args(argv)
    a, b = records(args.a), records(args.b)
    only = {name: sorted(set(x) - set(y)) for name, x, y in (("a", a, b), ("b", b, a))}
    fields: Counter[str] = Counter()
    differing = []
    for key in sorted(set(a) & set(b), key=str):
        changed = sorted(f for f in a[key].keys() | b[key].keys() if a[key].get(f) != b[key].get(f))
        fields.update(changed)
        if changed:
            differing.append((key, changed))
    print(f"{len(a)} and {len(b)} records; {len(set(a) & set(b))} matched, {len(differing)} differ")
    for name, keys in only.items():
        if keys:
            print(f"only in {name}: {len(keys)}, e.g. {keys[0]}")
    for field, count in fields.most_common():
        print(f"  {field}: {count}")
    for key, changed in differing[: args.show]:
        print(f"{key}:")
        for field in changed:
            print(f"  {field}:")
            for name, side in (("a", a), ("b", b)):
                print(f"    {name}: {json.dumps(side[key].get(field))[:300]}")
    return 1 if differing or any(only.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
