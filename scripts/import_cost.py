"""What importing the openai SDK costs, and proof that loading the plugin does not pay it.

Median wall time of N fresh interpreters importing each module (the interpreter's own start-up
subtracted), and whether ``openai`` ended up in ``sys.modules`` after importing the plugin.

    PYTHONPATH=$PWD python scripts/import_cost.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

PROBE = (
    "import sys, time; t = time.perf_counter(); import {module}; "
    "print(time.perf_counter() - t, 'openai' in sys.modules)"
)


def cost(module: str, runs: int) -> tuple[float, bool]:
    outputs = [
        subprocess.run(
            [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(runs)
    ]
    return statistics.median(float(seconds) for seconds, _ in outputs), outputs[0][1] == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for module in ("openai", "pytest_granularity.plugin"):
        seconds, loaded = cost(module, args.runs)
        print(f"import {module}: median {seconds:.3f} s over {args.runs} runs; openai loaded: {loaded}")


if __name__ == "__main__":
    main()
