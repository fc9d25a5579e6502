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
    args = parser.parse_args(argv)
    return _tasks_check(args.paths, args.macros)


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
