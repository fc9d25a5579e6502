"""Two routers on one agent's runs: where their decisions differ, and what each gains there.

A router trained on the reference agent's runs (``router.json``) and one trained on another agent's
(``.granularity/local-model/router.json``, from the bundled model's recording) are asked to route
the same tasks; each choice is scored on the given runs as ``granularity train`` scores a policy
(``training.simulate``: a micro route is the micro run, a macro route the macro run, and after a
failed macro the hybrid run when the router's recovery tree degrades). Routing on the tasks it was
trained on is not held out: the held-out numbers are ``granularity train``'s own tables.

    python scripts/router_compare.py --runs out.jsonl --tasks TASKS_FOLDER \
        [--routers router.json .granularity/local-model/router.json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from pytest_granularity.core.failures import Fault
from pytest_granularity.routing.routers import Router
from pytest_granularity.routing.training import index_runs, read_runs, simulate, task_infos

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, required=True, help="a report's .json or its .jsonl of run records")
    parser.add_argument("--tasks", type=Path, required=True, help="a folder holding the tasks the runs are of")
    parser.add_argument(
        "--routers", type=Path, nargs=2, default=[REPO / "router.json", REPO / ".granularity/local-model/router.json"]
    )
    args = parser.parse_args()
    runs = index_runs(read_runs(args.runs))
    infos = task_infos(args.tasks)
    routers = {path: Router.load(path) for path in args.routers}
    print("| task | " + " | ".join(f"{p.parent.name}/{p.name}" for p in routers) + " |")
    print("|---" * (len(routers) + 1) + "|")
    totals: dict[Path, list[tuple[float, float]]] = {p: [] for p in routers}
    for task in sorted(t for t in infos if any(k[0] == t for k in runs)):
        chosen = {}
        for path, router in routers.items():
            mode = router.mode_of(infos[task].features)
            run = simulate(runs, task, Fault.NONE, mode, router.recover)
            if run is None:
                continue
            chosen[path] = (mode, run)
            totals[path].append((float(run.success), float(run.tokens)))
        if len({mode for mode, _ in chosen.values()}) > 1:
            cells = [
                f"{mode}: {'passed' if run.success else 'failed'}, {run.tokens} tokens" for mode, run in chosen.values()
            ]
            print(f"| {task} | " + " | ".join(cells) + " |")
    print()
    for path, scores in totals.items():
        success = statistics.fmean(s for s, _ in scores)
        tokens = statistics.fmean(t for _, t in scores)
        print(f"{path.parent.name}/{path.name}: {len(scores)} tasks, success {success:.3f}, mean tokens {tokens:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
