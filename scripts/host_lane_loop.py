"""The host lane again and again: ``scripts/host_smoke.py`` (record, then replay) N times in a row.

A lane that fails one time in a few passes most single runs: only a loop shows it is gone. The loop
stops at the first failure, whose lane keeps its recordings and names the folder (host_smoke), and
ends with how many rounds ran, how many passed, and the time they took.

    python scripts/host_lane_loop.py [--rounds 20] [host_smoke options, e.g. --steps 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

LANE = Path(__file__).resolve().parent / "host_smoke.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args, lane_options = parser.parse_known_args()
    started, passed, status = time.monotonic(), 0, 0
    for round_ in range(1, args.rounds + 1):
        began = time.monotonic()
        status = subprocess.run([sys.executable, str(LANE), *lane_options]).returncode
        verdict = "passed" if status == 0 else f"FAILED (exit status {status})"
        took = time.monotonic() - began
        print(f"host lane loop: round {round_} of {args.rounds} {verdict} in {took:.0f} s", flush=True)
        if status:
            break
        passed += 1
    ran = passed + (1 if status else 0)
    print(
        f"host lane loop: {passed} of {ran} rounds passed"
        f"{' in a row' if not status else ', stopped at the first failure'}, "
        f"{time.monotonic() - started:.0f} s in all"
    )
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
