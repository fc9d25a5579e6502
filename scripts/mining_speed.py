"""What mining a repository costs, in runs of its own test suite: a benchmark, not a timed test.

Times the project's whole suite as its development environment runs it (``python -m pytest -q -p
no:cacheprovider`` in the clone, with that environment's Python: run this script with it), and sets the
median seconds per decided and per kept candidate of a finished mining run (its ``mined.json``) against it.
Writes ``.granularity/mining/speed-NAME.json``, which ``scripts/generate_docs.py`` turns into docs/mining.md's
speed table:

    /path/to/clone/.venv/bin/python scripts/mining_speed.py arrow /path/to/clone /path/to/mined-folder
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".granularity" / "mining"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name")
    parser.add_argument("clone", type=Path, help="the repository, its project installed in this Python")
    parser.add_argument("mined", type=Path, help="the folder granularity tasks mine wrote (its mined.json)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of the suite; the median is kept")
    args = parser.parse_args(argv)
    rows = list(json.loads((args.mined / "mined.json").read_text(encoding="utf-8"))["commits"].values())
    suite = statistics.median(_suite_seconds(args.clone) for _ in range(args.runs))
    decided = [row["seconds"] for row in rows if "seconds" in row and row.get("reason") != "message says nothing"]
    kept = [row["seconds"] for row in rows if row.get("kept")]
    document = {
        "name": args.name,
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "suite_seconds": round(suite, 2),
        "candidates": len(rows),
        "decided_median_seconds": round(statistics.median(decided), 2) if decided else None,
        "kept_median_seconds": round(statistics.median(kept), 2) if kept else None,
        "kept_median_suites": round(statistics.median(kept) / suite, 2) if kept else None,
        "kept_median_runs": statistics.median(row.get("runs", 0) for row in rows if row.get("kept")) if kept else None,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"speed-{args.name}.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(document, indent=1))
    return 0


def _suite_seconds(clone: Path) -> float:
    """One run of the whole suite; its outcome does not matter here (a coverage floor can fail a green run)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=clone,
        env=env,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.monotonic() - started


if __name__ == "__main__":
    sys.exit(main())
