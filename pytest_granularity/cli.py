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
    report.add_argument("-v", "--verbose", action="store_true", help="also the per-family table and every run")
    report.add_argument("--plot", type=Path, metavar="PNG", help="also write the plot")
    merge = commands.add_parser("merge", help="combine shard reports into one report, as an unsharded run writes it")
    merge.add_argument("reports", nargs="+", type=Path)
    merge.add_argument("-o", "--output", type=Path, required=True, metavar="PATH")
    commands.add_parser("fsm", help="print the recovery executor's states and transition table")
    args = parser.parse_args(argv)
    if args.command == "fsm":
        from .executor import transition_table

        print(transition_table())
        return 0
    if args.command == "report":
        return _report(args)
    if args.command == "merge":
        return _merge(args.reports, args.output)
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


def _report(args: argparse.Namespace) -> int:
    from .metrics import summarize
    from .plot import write_plot
    from .report import read_records, render_report, update_markdown

    try:
        records = read_records(args.path)
        if args.update is not None:
            update_markdown(args.update, summarize(records))
        if args.plot is not None:
            print(f"plot: {write_plot(args.plot, summarize(records))}", file=sys.stderr)
    except (OSError, ValueError) as exc:
        print(f"granularity report: {exc}", file=sys.stderr)
        return 2
    print(render_report(records, markdown=args.markdown, verbose=args.verbose))
    return 0


def _merge(reports: list[Path], output: Path) -> int:
    from .report import read_records, write_report

    try:
        records = [record for path in reports for record in read_records(path)]
    except (OSError, ValueError) as exc:
        print(f"granularity merge: {exc}", file=sys.stderr)
        return 2
    seen: dict[tuple[str, str, str], int] = {}
    for record in records:
        seen[record.key] = seen.get(record.key, 0) + 1
    duplicated = sorted(key for key, count in seen.items() if count > 1)
    if duplicated:
        print(f"granularity merge: runs appear in more than one report: {duplicated[:5]}", file=sys.stderr)
        return 2
    summary, runs = write_report(output, records)
    print(f"merged {len(records)} runs from {len(reports)} reports into {summary} and {runs}")
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
