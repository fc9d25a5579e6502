"""The ``granularity`` command: tools around the plugin that are not a test run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .tasks import find_task_files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="granularity", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    tasks = commands.add_parser("tasks", help="work with task files").add_subparsers(dest="tasks_command", required=True)
    check = tasks.add_parser("check", help="prove every task honest: verifier fails before, passes after the reference")
    check.add_argument("paths", nargs="*", type=Path, default=[Path("benchmark_tasks")])
    check.add_argument("--macros", type=Path, action="append", default=[], metavar="PATH", help="a folder of extra macros")
    stats = tasks.add_parser("stats", help="per family: task count, macro-fit spread and macros used (markdown)")
    stats.add_argument("paths", nargs="*", type=Path, default=[Path("benchmark_tasks")])
    report = commands.add_parser("report", help="re-render the table of a saved --granularity-report")
    report.add_argument("path", type=Path)
    report.add_argument("--markdown", action="store_true", help="print a markdown table")
    report.add_argument("--update", type=Path, metavar="FILE", help="replace the table between the granularity:table markers in FILE")
    commands.add_parser("fsm", help="print the recovery executor's states and transition table")
    args = parser.parse_args(argv)
    if args.command == "fsm":
        from .executor import transition_table

        print(transition_table())
        return 0
    if args.command == "report":
        return _report(args.path, args.markdown, args.update)
    if args.tasks_command == "stats":
        return _tasks_stats(args.paths)
    return _tasks_check(args.paths, args.macros)


def _tasks_stats(paths: list[Path]) -> int:
    from collections import Counter

    from .tasks import FAMILIES, TaskError, load_task

    try:
        tasks = [load_task(p) for p in find_task_files(paths)]
    except TaskError as exc:
        print(exc, file=sys.stderr)
        return 2
    fits = ("exact", "precondition", "validation", "none")
    print("| family | tasks | " + " | ".join(f"fit: {f}" for f in fits) + " | with faults | macros |")
    print("|---" * (len(fits) + 4) + "|")
    for family in (*FAMILIES, None):
        group = [t for t in tasks if family is None or t.family == family]
        fit = Counter(t.fit or "none" for t in group)
        macros = Counter(t.macro.skill for t in group if t.macro)
        used = ", ".join(f"{name} {count}" for name, count in sorted(macros.items())) or "-"
        cells = [family or "**all**", str(len(group)), *(str(fit[f]) for f in fits), str(sum(bool(t.faults) for t in group)), used]
        print("| " + " | ".join(cells) + " |")
    return 0


def _report(path: Path, markdown: bool, update: Path | None) -> int:
    from .metrics import summarize
    from .report import read_records, render_markdown, render_table, update_markdown

    try:
        summaries = summarize(read_records(path))
        if update is not None:
            update_markdown(update, summaries)
    except (OSError, ValueError) as exc:
        print(f"granularity report: {exc}", file=sys.stderr)
        return 2
    print(render_markdown(summaries) if markdown else render_table(summaries))
    return 0


def _tasks_check(paths: list[Path], macro_folders: list[Path]) -> int:
    from .macros import MacroRegistry
    from .schemas import DefinitionError
    from .taskcheck import check_task_file

    try:
        macros = MacroRegistry.load(macro_folders)
    except DefinitionError as exc:
        print(f"bad macro definition: {exc}", file=sys.stderr)
        return 2
    files = find_task_files(paths)
    if not files:
        print(f"no {', '.join(map(str, paths))}/**/task.yaml found", file=sys.stderr)
        return 2
    failed = 0
    for i, path in enumerate(files, 1):
        result = check_task_file(path, macros)
        status = "ok" if result.ok else "FAILED"
        print(f"[{i}/{len(files)}] {status} {path.parent.name}", flush=True)
        for problem in result.problems:
            print("    " + problem.replace("\n", "\n    "))
        failed += not result.ok
    print(f"{len(files) - failed} of {len(files)} tasks pass every check")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
