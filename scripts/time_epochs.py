"""What do epochs cost in wall time on the benchmark? Runs the same session with 1 and with N epochs.

Sessions alternate (1, N, 1, N, ...) so a busy machine slows both alike; prints each session's
wall time, the medians and their ratio.

    python scripts/time_epochs.py --epochs 3 --repeats 2 -- --granularity=hybrid -n 2 --dist loadfile
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def session(epochs: int, pytest_args: list[str]) -> float:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "benchmark_tasks",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--granularity-epochs={epochs}",
        *pytest_args,
    ]
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("pytest_args", nargs="*", default=["--granularity=hybrid", "-n", "2", "--dist", "loadfile"])
    args = parser.parse_args()
    seconds: dict[int, list[float]] = {1: [], args.epochs: []}
    for repeat in range(args.repeats):
        for epochs in seconds:
            seconds[epochs].append(session(epochs, args.pytest_args))
            print(f"repeat {repeat + 1}, {epochs} epoch(s): {seconds[epochs][-1]:.1f} s", flush=True)
    one, many = (statistics.median(seconds[n]) for n in seconds)
    print(f"median wall time: 1 epoch {one:.1f} s, {args.epochs} epochs {many:.1f} s, ratio {many / one:.2f}")


if __name__ == "__main__":
    main()
