"""Run every cheating agent (``pytest_granularity.verifier.adversaries``) on every task; print what the verifier said.

Usage: ``PYTHONPATH=. python scripts/adversary_table.py [TASK_DIRS...]`` (default ``benchmark_tasks``).
A cheat scores only when the verifier accepts; the table also shows how each rejection was
classified (an agent failure, or an infrastructure error).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from pytest_granularity.core.tasks import find_task_files, load_task
from pytest_granularity.run.taskcheck import adversary_verdicts
from pytest_granularity.verifier.adversaries import ADVERSARIES


def main(paths: list[Path]) -> int:
    counts: dict[str, Counter[str]] = {a.name: Counter() for a in ADVERSARIES}
    files = find_task_files(paths)
    for index, path in enumerate(files, 1):
        task = load_task(path)
        for name, verdict in adversary_verdicts(task).items():
            kind = "accepted" if verdict.accepted else "error" if verdict.infrastructure_error else "failed"
            counts[name][kind] += 1
            if kind != "failed":
                print(f"  {task.id} {name}: {kind} {verdict.infrastructure_error or ''}", flush=True)
        print(f"[{index}/{len(files)}] {task.id}", flush=True)
    print("\n| cheating agent | tasks | accepted (scored) | rejected: failed run | rejected: infrastructure error |")
    print("| --- | --- | --- | --- | --- |")
    for name, counter in counts.items():
        print(f"| {name} | {len(files)} | {counter['accepted']} | {counter['failed']} | {counter['error']} |")
    return 1 if any(c["accepted"] for c in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main([Path(p) for p in sys.argv[1:]] or [Path("benchmark_tasks")]))
