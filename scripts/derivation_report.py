"""How well the macros' derivation pins down the reference calls: precision and recall per family and per macro.

For every task it asks each builtin macro for its suggested calls (``macros.suggestions``: what
``applicability.derive`` proposes from the prompt and the initial files, and the macro's own
preconditions accept), and compares them with the task's reference macro call. Two calls are the
same when they do the same thing: a move or a summary with the same arguments, a replacement that
leaves the same files with the same contents (``"1.71"`` and ``'"GBP": "1.71"'`` may both be
right). Derivation never sees the reference call, the verifier or the solution.

- recall: of the tasks whose reference call its preconditions accept (the call can be suggested),
  those where it is among the suggestions; replacements are also counted over the tasks whose
  prompt states the replacement (every word or number the call inserts is in the prompt);
- precision: of all suggested calls, those that are the task's reference call;
- first: tasks where the first suggestion of the first macro that retrieval ranks is the
  reference call (what the no-model baseline agent calls);
- on tasks where no macro fits (``fit: none``), every suggestion is a false one, counted.

    python scripts/derivation_report.py [--json OUT] [TASK_DIR ...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_granularity.core.tasks import Task, find_task_files, load_task
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.evolution.differing import common_ends
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.macros.suggestions import suggested_calls

REPO = Path(__file__).resolve().parent.parent
REPLACE = "replace_and_verify"
COLUMNS = (
    "tasks",
    "with a suggestable call",
    "recall",
    "stated replacements: recall",
    "suggested",
    "correct",
    "precision",
    "first suggestion right",
    "suggested on fit: none",
)
_TOKEN = re.compile(r"\w+|[^\w\s]")


def same_call(skill: str, a: dict[str, Any], b: dict[str, Any], files: dict[str, bytes]) -> bool:
    if skill != REPLACE:
        return {k: v for k, v in a.items() if k != "tests"} == {k: v for k, v in b.items() if k != "tests"}
    return _replaced(a, files) == _replaced(b, files)


def _replaced(args: dict[str, Any], files: dict[str, bytes]) -> dict[str, str] | None:
    out = {}
    for rel in args["files"]:
        text = files.get(rel, b"").decode("utf-8", "replace")
        if text.count(args["old"]) != 1:
            return None
        out[rel] = text.replace(args["old"], args["new"], 1)
    return out


def states_replacement(prompt: str, args: dict[str, Any]) -> bool:
    """Every word or number the replacement inserts is in the prompt (and it inserts at least one)."""
    old, new = _TOKEN.findall(args["old"]), _TOKEN.findall(args["new"])
    start, end = common_ends(old, new)
    inserted = new[start : len(new) - end]
    words = set(_TOKEN.findall(prompt))
    return any(t[0].isalnum() for t in inserted) and all(t in words for t in inserted)


def evaluate(task: Task, macros: MacroRegistry) -> dict[str, Any]:
    with Workspace.for_task(task) as workspace:
        files = dict(workspace.initial)
    suggestions = suggested_calls(task.prompt, files, macros.available(), task.hidden_paths)
    ranked = [m.name for m in macros.ranked(task.prompt)]
    first = next(((name, suggestions[name][0]) for name in ranked if suggestions.get(name)), None)
    reference = task.macro
    hits = [
        (name, call)
        for name, calls in suggestions.items()
        for call in calls
        if reference is not None and name == reference.skill and same_call(name, call, reference.args, files)
    ]
    suggestable = reference is not None and task.fit in ("exact", "validation")  # its preconditions accept it
    return {
        "task": task.id,
        "family": task.family,
        "fit": task.fit,
        "skill": reference.skill if reference else None,
        "suggestable": suggestable,
        "stated": bool(
            reference and reference.skill == "replace_and_verify" and states_replacement(task.prompt, reference.args)
        ),
        "suggested": sum(len(c) for c in suggestions.values()),
        "hit": bool(hits),
        "first_hit": bool(
            first and reference and first[0] == reference.skill and same_call(first[0], first[1], reference.args, files)
        ),
        "suggestions": suggestions,
    }


def table(rows: list[dict[str, Any]], key: str) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row[key] or "-"].append(row)
    lines = [
        f"| {key} | {' | '.join(COLUMNS)} |",
        "|---" * (len(COLUMNS) + 1) + "|",
    ]
    for name in sorted(groups):
        g = groups[name]
        able = [r for r in g if r["suggestable"]]
        stated = [r for r in g if r["stated"] and r["suggestable"]]
        suggested = sum(r["suggested"] for r in g)
        correct = sum(r["hit"] for r in g)
        lines.append(
            f"| {name} | {len(g)} | {len(able)} | {_ratio(sum(r['hit'] for r in able), len(able))} | "
            f"{_ratio(sum(r['hit'] for r in stated), len(stated))} | {suggested} | {correct} | "
            f"{_ratio(correct, suggested)} | {sum(r['first_hit'] for r in g)} | "
            f"{sum(r['suggested'] for r in g if r['fit'] == 'none')} |"
        )
    return lines


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.2f})" if b else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", nargs="*", type=Path, default=[REPO / "benchmark_tasks"])
    parser.add_argument("--json", type=Path, help="write every task's row (with its suggestions) here")
    args = parser.parse_args()
    macros = MacroRegistry.load()
    rows = [evaluate(load_task(path), macros) for path in find_task_files(args.tasks)]
    print("\n".join(table(rows, "family")))
    print()
    print("\n".join(table(rows, "skill")))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
