"""Time split: do macros mined from a repository's older commits solve its newer ones?

The tasks ``granularity tasks mine`` wrote from a real history (scripts/mine_repository.py) are ordered by
their commit's date; the older half is mined (each task's reference solution is the commit's own change),
and the mined macros alone are offered, in macro mode, to the no-model first-suggestion agent on the newer
half. A solved task's tokens are set against the reference agent's micro run of it; a call that passes its
own validation and that the verifier rejects is counted as harmful. The reference agent's coverage is
measured too: the mined macros called wherever one reproduces a piece of a newer commit (an agent that
knows the change uses them for that part and finishes by hand), and the share of the commit's changed
lines they wrote; where they write the whole change, whether they solve it (made under the macro's contract,
the verifier accepting what they leave). Each newer commit they cover in part is then run through the plugin:
the reference agent in hybrid with the mined macros (it calls them for their pieces and finishes with micro
tools) beside its micro run, with each run's steps, tokens and macro coverage (``partial_use``). Writes
``.granularity/evolution/time-split-NAME.json`` (docs/evolution.md's tables):

    python scripts/evolution_time_split.py boltons /path/to/mined-boltons-tasks
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pytest_granularity.core.modes import PolicyName
from pytest_granularity.core.tasks import Task, find_task_files, load_task
from pytest_granularity.evolution.coverage import reference_coverage
from pytest_granularity.evolution.macro import mined_macros
from pytest_granularity.evolution.measure import attempt, micro_run, partial_use, reference_run, tally
from pytest_granularity.evolution.miner import mine_sources
from pytest_granularity.evolution.sources import task_source, task_sources
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process.sandbox import Sandbox, select
from pytest_granularity.run.reproduces import reproduces

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".granularity" / "evolution"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name")
    parser.add_argument("tasks", type=Path, help="the folder scripts/mine_repository.py mined into")
    args = parser.parse_args()
    started = time.monotonic()
    tasks = sorted((load_task(f) for f in find_task_files([args.tasks])), key=lambda t: (_date(t), t.id))
    older, newer = tasks[: len(tasks) // 2], tasks[len(tasks) // 2 :]
    sandbox = select("auto")
    try:
        sources = [s for t in older for s in task_sources(t.path.parent)]
        with tempfile.TemporaryDirectory(prefix="granularity-time-split-") as scratch:
            mined = mine_sources(sources, Path(scratch), sandbox)
            registry = MacroRegistry.load([Path(scratch)], builtin=False)
            attempts = [attempt(t, registry, sandbox) for t in newer]
            engines = mined_macros(Path(scratch))
            covered = [reference_coverage(task_source(t), engines) for t in newer]
            whole = [c for c in covered if c.share == 1.0 and len({call["macro"] for call in c.calls}) == 1]
            by_id = {t.id: t for t in newer}
            accepted = [c.task for c in whole if _reproduced(by_id[c.task], c.calls, registry, sandbox)]
            hybrid = {
                c.task: reference_run(by_id[c.task], PolicyName.HYBRID, registry, sandbox) for c in covered if c.calls
            }
        solved = {a.task: a.tokens for a in attempts if a.solved}
        micro = {t.id: micro_run(t, sandbox) for t in newer if t.id in solved or t.id in hybrid}
    finally:
        sandbox.servers.stop()
    document = {
        "command": f"python scripts/evolution_time_split.py {args.name} TASKS",
        "repository": args.name,
        "older": len(older),
        "newer": len(newer),
        "split": _date(newer[0]) if newer else None,
        "shapes": len(mined.shapes),
        "macros": {s.name: len(s.tasks) for s in mined.kept},
        "unused": mined.unused,
        "with_pieces": mined.with_pieces,
        "moves": mined.moves,
        "replacements": mined.replacements,
        "newer_solved": tally(attempts),
        "reference_coverage": [asdict(c) | {"share": c.share} for c in covered if c.calls],
        "solved_by_reference_calls": accepted,
        "tokens": {t: {"macro": solved[t], "micro": micro[t].tokens} for t in sorted(solved)},
        "partial_use": [partial_use(hybrid[t], micro[t]) for t in sorted(hybrid)],
        "minutes": round((time.monotonic() - started) / 60, 1),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"time-split-{args.name}.json"
    out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"time split {args.name}: {len(older)} older mined into {len(mined.kept)} macros; "
        f"{document['newer_solved']['solved']} of {len(newer)} newer solved, "
        f"{document['newer_solved']['harmful']} harmful; {len(document['reference_coverage'])} covered in part by "
        f"the reference agent's calls, {len(accepted)} solved by them alone; wrote {out.relative_to(REPO)}"
    )
    return 0


def _reproduced(task: Task, calls: list[dict[str, Any]], registry: MacroRegistry, sandbox: Sandbox) -> bool:
    """Whether the reference agent's calls alone, made under the macro's contract, leave a workspace the task's
    verifier accepts: the mined macro solves the newer commit."""
    macro = registry.get(calls[0]["macro"].replace("-", "_"))
    args = [{k: v for k, v in call.items() if k != "macro"} for call in calls]
    return macro is not None and reproduces(task, macro, args, sandbox)


def _date(task: object) -> str:
    provenance = getattr(task, "provenance", None) or {}
    return str(provenance.get("date", ""))


if __name__ == "__main__":
    sys.exit(main())
