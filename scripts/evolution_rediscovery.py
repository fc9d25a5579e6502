"""Rediscovery: do macros mined from GranBench-Code's training folds solve its held-out folds?

The builtin macros are removed. The reference agent solves every task with micro tools; for each of the
five folds the router's training uses (``routing.training.folds``, ``kfold``), the successful micro runs of
the other four folds are mined (``granularity macros mine``) and the mined macros alone are offered, in
macro mode, to the no-model first-suggestion agent on the held-out fold. The same agent with the builtin
macros is the yardstick. The reference agent's coverage is measured too: the held-out tasks whose reference
change a mined macro's call makes part of, and the share of its changed lines. Writes
``.granularity/evolution/rediscovery.json`` (docs/evolution.md's tables):

    python scripts/evolution_rediscovery.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from pytest_granularity.core.tasks import find_task_files, load_task
from pytest_granularity.evolution.coverage import reference_coverage
from pytest_granularity.evolution.macro import mined_macros
from pytest_granularity.evolution.measure import attempt, micro_run, tally
from pytest_granularity.evolution.miner import mine_sources
from pytest_granularity.evolution.sources import run_sources, task_source
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process.sandbox import select
from pytest_granularity.routing.training import FOLDS

REPO = Path(__file__).resolve().parent.parent
RESULT = REPO / ".granularity" / "evolution" / "rediscovery.json"


def main() -> int:
    started = time.monotonic()
    sandbox = select("auto")
    try:
        tasks = {t.id: t for t in (load_task(f) for f in find_task_files([REPO / "benchmark_tasks"]))}
        order = sorted(tasks)
        micro = {t: micro_run(tasks[t], sandbox) for t in order}
        print(f"rediscovery: {sum(r.outcome == 'passed' for r in micro.values())} of {len(order)} micro runs passed")
        builtin = MacroRegistry.load()
        folds, mined_attempts, builtin_attempts = [], [], []
        for index in range(FOLDS):
            held = order[index::FOLDS]
            training = [micro[t] for t in order if t not in held]
            with tempfile.TemporaryDirectory(prefix="granularity-rediscovery-") as scratch:
                mined = mine_sources(run_sources(training, tasks), Path(scratch), sandbox, say=lambda line: None)
                registry = MacroRegistry.load([Path(scratch)], builtin=False)
                attempts = [attempt(tasks[t], registry, sandbox) for t in held]
                engines = mined_macros(Path(scratch))
                covered = [reference_coverage(task_source(tasks[t]), engines) for t in held]
            yardstick = [attempt(tasks[t], builtin, sandbox) for t in held]
            mined_attempts += attempts
            builtin_attempts += yardstick
            folds.append(
                {
                    "fold": index,
                    "held_out": len(held),
                    "macros": {s.name: len(s.tasks) for s in mined.kept},
                    "mined": {k: v for k, v in tally(attempts).items() if k != "attempts"},
                    "builtin": {k: v for k, v in tally(yardstick).items() if k != "attempts"},
                    "reference_coverage": [asdict(c) | {"share": c.share} for c in covered if c.calls],
                }
            )
            print(
                f"rediscovery: fold {index}: {folds[-1]['macros']} solve {folds[-1]['mined']['solved']} "
                f"of {len(held)}; builtins {folds[-1]['builtin']['solved']}",
                flush=True,
            )
    finally:
        sandbox.servers.stop()
    document = {
        "command": "python scripts/evolution_rediscovery.py",
        "folds": folds,
        "mined": tally(mined_attempts),
        "builtin": tally(builtin_attempts),
        "minutes": round((time.monotonic() - started) / 60, 1),
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"rediscovery: wrote {RESULT.relative_to(REPO)} in {document['minutes']} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
