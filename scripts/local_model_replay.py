"""Replay the bundled model's committed recording through the gate, and check it reproduces the recorded report.

``.granularity/local-model/`` holds what a recording session made: ``args.txt`` (the tasks,
policies and settings, read by pytest as ``@args.txt``), ``cassette/`` (every response),
``baseline.json`` (the gate's baseline) and ``report.json`` (the summaries the recording session
itself wrote, with ``--granularity-report``). This runs the same session in replay mode (no
server, no network), gated on the baseline, and fails unless its summaries equal the recorded
ones less measured latencies. ``--update`` writes the baseline from the replay instead (after a
recording session).

    python scripts/local_model_replay.py [--update]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_granularity.report.render import without_timings

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / ".granularity" / "local-model"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="write baseline.json from the replay")
    args = parser.parse_args()
    recorded = FOLDER / "report.json"
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "replay.json"
        gate = ["--granularity-update-baseline"] if args.update else []
        started = time.monotonic()
        pytest = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                f"@{FOLDER / 'args.txt'}",
                "--granularity-model-cache-mode=replay",
                f"--granularity-baseline={FOLDER / 'baseline.json'}",
                *gate,
                f"--granularity-report={report}",
                "-n",
                "2",
                "--dist",
                "loadfile",
                "-p",
                "no:cacheprovider",
                "-q",
            ],
            cwd=REPO,
        )
        wall = time.monotonic() - started
        if pytest.returncode not in ((0, 1) if args.update else (0,)):  # a first baseline has no failures to expect
            print(f"local model replay: pytest exited {pytest.returncode}", file=sys.stderr)
            return 1
        replayed = report.read_text()
    if args.update:
        print(f"local model replay: wrote the baseline ({wall:.0f} s)")
    if without_timings(replayed) != without_timings(recorded.read_text()):
        print(f"local model replay: the summaries differ from {recorded.relative_to(REPO)}", file=sys.stderr)
        return 1
    print(f"local model replay: gate passed, summaries identical to the recorded ones ({wall:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
