"""The ``granularity`` command: tools around the plugin that are not a test run."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .core import __version__
from .core.errors import GranularityError, InputError
from .core.modes import PolicyName
from .core.tasks import find_task_files, load_task
from .process.sandbox import MODES as SANDBOX_MODES

if TYPE_CHECKING:
    from contextlib import ExitStack

    import pytest

    from .process.sandbox import Sandbox
    from .verifier.served_verifier import ServedVerifier


ERRORS = (GranularityError, OSError)
"""What a command refuses with: an error of the package's own, or a file that cannot be read or written."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; any error of the package's own (or a file that cannot be read or written) is one line,
    ``granularity COMMAND: message``, and exit status 2."""
    args = _parser().parse_args(argv)
    action = getattr(args, f"{args.command}_command", None)
    command = f"{args.command} {action}" if action else args.command
    try:
        return COMMANDS[command](args)
    except ERRORS as exc:
        print(f"granularity {command}: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="granularity", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    macros = argparse.ArgumentParser(add_help=False)
    macros.add_argument(
        "--macros", type=Path, action="append", default=[], metavar="PATH", help="a folder of extra macros"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    tasks = commands.add_parser("tasks", help="work with task files").add_subparsers(
        dest="tasks_command", required=True
    )
    check = tasks.add_parser(
        "check",
        parents=[macros],
        help="prove every task honest: verifier fails before, passes after the reference, resists cheating agents",
    )
    check.add_argument("paths", nargs="*", type=Path, default=[Path("benchmark_tasks")])
    check.add_argument(
        "--no-adversaries", action="store_true", help="skip the cheating agents (eight verifier runs per task)"
    )
    check.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="tasks checked at once (default: the cores)"
    )
    check.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        help="where verifiers and tests run, as --granularity-sandbox (default: the granularity_sandbox ini key, auto)",
    )
    _mine_arguments(
        tasks.add_parser(
            "mine",
            parents=[macros],
            help="write honest tasks from a repository's git history (each proved by tasks check)",
            description="Mine tasks from REPO's first-parent history into DIR; see docs/mining.md.",
        )
    )
    joining = tasks.add_parser(
        "merge",
        help="join the folders of tasks mine --shard runs into one, as a single run writes it",
        description="Copy the task folders of every DIR into OUT, with one mined.json of all their decisions.",
    )
    joining.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="a folder that tasks mine --shard wrote")
    joining.add_argument("-o", "--output", type=Path, required=True, metavar="OUT", help="a new or empty folder")
    stats = tasks.add_parser("stats", help="per family: task count, macro-fit spread and macros used (markdown)")
    stats.add_argument("paths", nargs="*", type=Path, default=[Path("benchmark_tasks")])
    report = commands.add_parser("report", help="re-render the table of a saved --granularity-report")
    report.add_argument("path", type=Path)
    report.add_argument("--markdown", action="store_true", help="print a markdown table")
    report.add_argument(
        "--update", type=Path, metavar="FILE", help="replace the table between the granularity:table markers in FILE"
    )
    report.add_argument("-v", "--verbose", action="store_true", help="also the per-family table and every run")
    report.add_argument("--plot", type=Path, metavar="PNG", help="also write the plot")
    report.add_argument("--html", type=Path, metavar="PATH", help="also write the browsable HTML page of every run")
    merge = commands.add_parser("merge", help="combine shard reports into one report, as an unsharded run writes it")
    merge.add_argument("reports", nargs="+", type=Path)
    merge.add_argument("-o", "--output", type=Path, required=True, metavar="PATH")
    commands.add_parser("fsm", help="print the recovery executor's states and transition table")
    contracts = commands.add_parser(
        "check-contracts", help="check macros against their contracts (runs pytest --granularity-contracts)"
    )
    contracts.add_argument("paths", nargs="*", type=Path, help="folders of extra macros")
    listing = commands.add_parser(
        "macros", parents=[macros], help="list macros with status, owner, version and (from a report) audit figures"
    )
    listing.add_argument("--report", type=Path, help="a saved --granularity-report, for the audit figures")
    _mine_macros_arguments(
        listing.add_subparsers(dest="macros_command").add_parser(
            "mine",
            help="write macros mined from recurring edits (each proved by the contract checks)",
            description="Mine edit shapes that recur across tasks from SOURCES into macro folders under DIR; a "
            "shape is written only when at least --min-support tasks share it, and kept only when every contract "
            "check passes on it (its replay reproduces each source task). See docs/evolution.md.",
        )
    )
    commands.add_parser("export-mcp", parents=[macros], help="print every macro as an MCP tool definition (JSON)")
    _serve_arguments(
        commands.add_parser(
            "serve-mcp",
            parents=[macros],
            help="serve micro tools and contract-checked macros to an MCP client over stdio (needs the 'mcp' extra)",
        )
    )
    train = commands.add_parser(
        "train", help="fit router.json from runs of the fixed policies (needs the 'train' extra)"
    )
    train.add_argument(
        "--runs",
        type=Path,
        help="a report (.json) or run records (.jsonl) to train on; default: run the fixed policies now",
    )
    train.add_argument("--tasks", type=Path, default=Path("benchmark_tasks"), help="the tasks the runs are of")
    train.add_argument("-o", "--output", type=Path, default=Path("router.json"))
    train.add_argument(
        "--save-runs",
        type=Path,
        help="where fresh runs are kept, to retrain from (default: .granularity/training-runs.jsonl beside -o)",
    )
    explain = commands.add_parser("explain", help="show a task's features and the path through each router tree")
    explain.add_argument("task", type=Path, help="a task folder or task.yaml")
    explain.add_argument("--router", type=Path, default=Path("router.json"))
    init = commands.add_parser(
        "init", help="set a repository up to gate its pull requests: workflow, pytest settings, tasks, baseline"
    )
    init.add_argument("path", nargs="?", type=Path, default=Path("."), help="in the repository (default: here)")
    init.add_argument("--force", action="store_true", help="replace files and settings that exist")
    init.add_argument(
        "--revisions", metavar="RANGE", help="the history to mine tasks from (default: the last 50 commits)"
    )
    init.add_argument("--limit", type=int, metavar="N", help="only the N most recent candidates")
    return parser


def _mine_macros_arguments(mine: argparse.ArgumentParser) -> None:
    mine.add_argument(
        "sources", nargs="+", type=Path, help="task folders (their reference solutions) and reports of runs"
    )
    mine.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="where macro folders go")
    mine.add_argument("--tasks", type=Path, metavar="DIR", help="the tasks a report's runs are of")
    mine.add_argument(
        "--min-support", type=int, default=2, metavar="K", help="the fewest tasks a shape must reproduce (default 2)"
    )
    mine.add_argument(
        "--sandbox", choices=SANDBOX_MODES, help="where the contract checks run, as --granularity-sandbox"
    )


def _mine_arguments(mine: argparse.ArgumentParser) -> None:
    mine.add_argument("repo", type=Path, help="the repository to mine (never changed)")
    mine.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="where task folders go")
    mine.add_argument(
        "--revisions", default="HEAD", metavar="RANGE", help="what to mine, as git rev-list takes it (default: HEAD)"
    )
    mine.add_argument("--limit", type=int, metavar="N", help="only the N most recent candidates")
    mine.add_argument(
        "--shard", metavar="K/N", help="only the K-th of N interleaved parts of the candidates (tasks merge joins them)"
    )
    mine.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="candidates decided at once (default: cores)"
    )
    mine.add_argument(
        "--repeats", type=int, default=2, metavar="N", help="runs of each side a test must pass or fail (default 2)"
    )
    mine.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="seconds a test run may take (default 120)"
    )
    mine.add_argument("--sandbox", choices=SANDBOX_MODES, help="where the tests run, as tasks check (default: auto)")


def _serve_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("."),
        help="the repository to work on (default: here); changed in place unless --copy",
    )
    serve.add_argument(
        "--policy",
        default=PolicyName.HEURISTIC,
        help=f"{', '.join(list(PolicyName)[:-1])} or {PolicyName.LEARNED} (default: {PolicyName.HEURISTIC})",
    )
    serve.add_argument(
        "--router", type=Path, default=Path("router.json"), metavar="FILE", help="the learned policy's router"
    )
    serve.add_argument(
        "--copy", action="store_true", help="work in a throw-away copy of PATH, removed when the server stops"
    )
    serve.add_argument(
        "--audit",
        type=Path,
        metavar="FILE",
        help="the audit log (JSONL; default: under ~/.local/state/pytest-granularity/mcp)",
    )
    serve.add_argument(
        "--max-steps", type=int, default=100, metavar="N", help="calls per task before it is stopped (default: 100)"
    )
    serve.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default="auto",
        help="where run_tests and the macros' work run: bwrap, none, or auto (bwrap when it works here; default)",
    )
    verifier = serve.add_mutually_exclusive_group()
    verifier.add_argument(
        "--verify-tests",
        action="append",
        default=[],
        metavar="PATH",
        help="a test file or folder of the repository (repeatable), held aside at start and run at finish",
    )
    verifier.add_argument(
        "--verify-command", metavar="CMD", help="a command run in the workspace at finish; exit status 0 accepts"
    )
    serve.add_argument(
        "--verify-timeout", type=float, default=60.0, metavar="S", help="seconds per verification (default: 60)"
    )


def _check_contracts(args: argparse.Namespace) -> int:
    import pytest

    return int(pytest.main(["--granularity-contracts", "-p", "no:cacheprovider", *map(str, args.paths)]))


def _with_config(run: Callable[[pytest.Config, argparse.Namespace], int], paths: str = "") -> Command:
    """A command that needs pytest's configuration (the plugins' macros, the ini keys) for ``args.<paths>``."""

    def command(args: argparse.Namespace) -> int:
        from .plugin.pytest_view import with_pytest_config

        raised: list[Exception] = []

        def inside(config: pytest.Config) -> int:
            try:
                return run(config, args)
            except ERRORS as exc:  # pytest would print it as an internal error: ``main`` prints it instead
                raised.append(exc)
                return 2

        code = with_pytest_config(getattr(args, paths) if paths else [], inside)
        if raised:
            raise raised[0]
        return code

    return command


def _fsm(args: argparse.Namespace) -> int:
    from .run.executor import transition_table

    print(transition_table())
    return 0


def _task_files(paths: list[Path]) -> list[Path]:
    files = find_task_files(paths)
    if not files:
        raise InputError(f"no {', '.join(map(str, paths))}/**/task.yaml found")
    return files


def _extra(module: str, what: str, extra: str) -> ModuleType:
    """A module of an optional extra: a missing dependency is an error that says what to install."""
    try:
        return importlib.import_module(f"{__package__}.{module}")
    except ImportError:
        from .core.distribution import install_command

        raise GranularityError(f"needs {what}: {install_command([extra])}") from None


def _task_ids(root: Path) -> list[str]:
    return [load_task(path).id for path in find_task_files([root])]


def _check_trainable(root: Path) -> None:
    """Refuse, before any run, tasks that held-out evaluation cannot split: it trains without each family in turn,
    so with one family it would fit a tree on nothing."""
    files = find_task_files([root])
    if not files:
        raise InputError(f"--tasks: no {root}/**/task.yaml found")
    families = sorted({load_task(path).family for path in files})
    if len(families) < 2:
        raise InputError(
            f"--tasks {root}: {len(files)} task(s), all of the family {families[0]}; training holds out each family"
            " in turn, so it needs tasks of at least two families"
        )


def _check_coverage(missing: list[str], args: argparse.Namespace) -> None:
    """Refuse, before any fitting, runs that do not cover every task under ``--tasks``."""
    if missing:
        named = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise InputError(
            f"--runs {args.runs}: no micro, macro and hybrid runs without a fault for {len(missing)} of the tasks"
            f" under {args.tasks} ({named}); give the runs of every task (train without --runs makes them),"
            " or point --tasks at the tasks they cover"
        )


def _train(args: argparse.Namespace) -> int:
    training = _extra("routing.training", "scikit-learn", "train")
    if args.save_runs is None:  # beside the router it trains: -o elsewhere leaves this repository's runs alone
        args.save_runs = args.output.parent / ".granularity" / "training-runs.jsonl"
    _check_outputs(("-o", args.output, ()), *(() if args.runs else (("--save-runs", args.save_runs, ()),)))
    _check_trainable(args.tasks)
    runs = training.read_runs(args.runs) if args.runs else training.fresh_runs(args.tasks)
    indexed = training.index_runs(runs)
    _check_coverage(training.uncovered(indexed, _task_ids(args.tasks)), args)
    if not args.runs:
        training.write_runs(args.save_runs, runs)
        print(f"runs kept in {args.save_runs}")
    infos = training.task_infos(args.tasks)
    router = training.fit_router(indexed, infos, infos)
    evaluation = {scheme: training.evaluate(indexed, infos, scheme) for scheme in ("family", "kfold")}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(training.router_document(router, indexed, infos, evaluation))
    print(
        f"wrote {args.output}: mode tree of {len(router.mode.feature)} nodes, "
        f"recovery tree of {len(router.recovery.feature)} nodes"
    )
    print(training.held_out_table(evaluation))
    from .report.paper import comparison

    print("\nbeside the paper (ratios):\n" + comparison(evaluation))
    return 0


def _check_outputs(*outputs: tuple[str, Path | None, tuple[str, ...]]) -> None:
    """Every file a command will write (and the files with the given suffixes it writes beside it) can be
    written: checked before any work, so none is lost."""
    from .plugin.output_paths import output_problem

    for option, path, suffixes in outputs:
        problem = output_problem(path, [path.with_suffix(s) for s in suffixes]) if path is not None else None
        if problem:
            raise InputError(f"{option}: {problem}")


def _explain(args: argparse.Namespace) -> int:
    from .routing.explain import explain_task

    print(explain_task(args.task, args.router))
    return 0


def _serve_mcp(args: argparse.Namespace) -> int:
    serve_stdio = _extra("mcp.server", "the MCP SDK", "mcp").serve_stdio
    from contextlib import ExitStack

    from .core.audit import AuditLog
    from .core.workspace import WorkspaceError
    from .macros import MacroRegistry
    from .mcp.tool_session import ServeSettings, ToolSession, default_audit_path, new_session_id, served_root
    from .process.sandbox import select
    from .routing.routers import Router, policy_named

    source = args.path.resolve()
    session_id = new_session_id()
    audit_path = (args.audit or default_audit_path(session_id)).resolve()
    if not source.is_dir():
        raise InputError(f"PATH {args.path}: not a directory")
    _check_serve_numbers(args, audit_path)
    macros = MacroRegistry.load(args.macros)
    policy = policy_named(args.policy, args.router, macros)
    router = Router.load(args.router) if args.policy == PolicyName.LEARNED else None
    sandbox = select(args.sandbox, "--sandbox")
    with ExitStack() as stack:
        verifier = _served_verifier(args, source, stack)
        try:
            root = stack.enter_context(served_root(source, args.copy))
        except WorkspaceError as exc:
            raise InputError(f"--copy: {exc}") from None
        if root == audit_path or root in audit_path.parents:
            raise InputError(f"--audit {audit_path} is inside the served workspace; its lines would count as changes")
        where = f"a copy of {source} at {root}" if args.copy else f"{root} in place"
        audit = AuditLog(
            audit_path,
            {
                "session": session_id,
                "workspace": str(root),
                "source": str(source),
                "in_place": not args.copy,
                "policy": policy.name,
                "sandbox": sandbox.mode,
                "verifier": verifier.description if verifier else None,
            },
        )
        print(f"granularity serve-mcp: serving {where}, policy {policy.name}, audit log {audit_path}", file=sys.stderr)
        print(f"granularity serve-mcp: {sandbox.describe()}", file=sys.stderr)
        print(f"granularity serve-mcp: verifier: {verifier.description if verifier else 'none'}", file=sys.stderr)
        settings = ServeSettings(
            policy, macros, router, args.router, args.max_steps, sandbox=sandbox, verifier=verifier
        )
        session = ToolSession(root, settings, audit, session_id)
        stack.callback(session.close)
        serve_stdio(session, on_stop=stack.close)
    return 0


def _check_serve_numbers(args: argparse.Namespace, audit_path: Path) -> None:
    """``ValueError`` naming the option: a step limit or timeout that is not positive, an audit log that is a folder."""
    if args.max_steps < 1:
        raise InputError(f"--max-steps {args.max_steps}: must be at least 1 (a task needs a call to finish)")
    if not args.verify_timeout > 0:
        raise InputError(f"--verify-timeout {args.verify_timeout:g}: must be more than 0 seconds")
    if audit_path.is_dir():
        raise InputError(f"--audit {audit_path}: is a folder; name the log file (JSONL) to append to")
    _check_outputs(("--audit", audit_path, ()))


def _served_verifier(args: argparse.Namespace, source: Path, stack: ExitStack) -> ServedVerifier | None:
    """The verifier the options name, its tests held aside in a folder removed when the server stops."""
    import tempfile

    from .verifier.served_verifier import command_verifier, held_tests

    if args.verify_command is not None:
        return command_verifier(args.verify_command, args.verify_timeout)
    if not args.verify_tests:
        return None
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="granularity-verifier-")))
    return held_tests(source, args.verify_tests, folder, args.verify_timeout)


def _macros(config: pytest.Config, args: argparse.Namespace) -> int:
    from .gate.metrics import macro_audit
    from .macros import MacroRegistry
    from .plugin.extensions import macro_roots
    from .report.render import read_records, render

    registry = MacroRegistry.load(macro_roots(config, args.macros))
    audits = {a.macro: a for a in macro_audit(read_records(args.report))} if args.report else {}
    rows = []
    for macro in registry:
        reason = registry.unavailable(macro.name)
        audit = audits.get(macro.name)
        figures = (
            (
                str(audit.calls),
                ", ".join(f"{k}={v}" for k, v in audit.failures.items()) or "-",
                f"{audit.mean_seconds:.3f}",
                f"{audit.p95_seconds:.3f}",
                f"{audit.mean_tokens_of_runs:.1f}",
            )
            if audit
            else ("-",) * 5
        )
        rows.append(
            (
                macro.name,
                "available" if reason is None else f"disabled: {reason}",
                str(macro.contract["owner"]),
                str(macro.contract["version"]),
                *figures,
            )
        )
    print(render(("macro", "status", "owner", "version", "calls", "failures", "mean s", "p95 s", "mean tokens"), rows))
    return 0


def _export_mcp(config: pytest.Config, args: argparse.Namespace) -> int:
    import json

    from .macros import MacroRegistry
    from .mcp.export import macro_tool, mcp_problems
    from .plugin.extensions import macro_roots

    tools = [macro_tool(m) for m in MacroRegistry.load(macro_roots(config, args.macros))]
    problems = [f"{t['name']}: {p}" for t in tools for p in mcp_problems(t)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(json.dumps({"tools": tools}, indent=2, sort_keys=True))
    return 0


def _tasks_stats(args: argparse.Namespace) -> int:
    from collections import Counter

    from .core.tasks import FAMILIES

    tasks = [load_task(p) for p in _task_files(args.paths)]
    fits = ("exact", "precondition", "validation", "none")
    print("| family | tasks | " + " | ".join(f"fit: {f}" for f in fits) + " | with faults | macros |")
    print("|---" * (len(fits) + 4) + "|")
    for family in (*FAMILIES, None):
        group = [t for t in tasks if family is None or t.family == family]
        fit = Counter(t.fit or "none" for t in group)
        macros = Counter(t.macro.skill for t in group if t.macro)
        used = ", ".join(f"{name} {count}" for name, count in sorted(macros.items())) or "-"
        cells = [
            family or "**all**",
            str(len(group)),
            *(str(fit[f]) for f in fits),
            str(sum(bool(t.faults) for t in group)),
            used,
        ]
        print("| " + " | ".join(cells) + " |")
    return 0


def _report(args: argparse.Namespace) -> int:
    from .core.schemas import read_text
    from .gate.metrics import epoch_summaries, summarize
    from .report.plot import write_plot
    from .report.render import read_records, render_report, update_markdown

    _check_outputs(("--plot", args.plot, (".txt",)), ("--html", args.html, ()))
    if args.update is not None:
        read_text(args.update)  # the file to update must exist and be text, before any work
    records = read_records(args.path)
    if args.update is not None:
        update_markdown(args.update, summarize(records))
    if args.plot is not None:
        print(f"plot: {write_plot(args.plot, summarize(records), epoch_summaries(records))}", file=sys.stderr)
    if args.html is not None:
        from .report.html import write_html

        print(f"html: {write_html(args.html, records)}", file=sys.stderr)
    print(render_report(records, markdown=args.markdown, verbose=args.verbose))
    return 0


def _merge(args: argparse.Namespace) -> int:
    from .report.render import merged_records, write_report

    _check_outputs(("-o", args.output, (".jsonl",)))
    records = merged_records(args.reports)
    summary, runs = write_report(args.output, records)
    print(f"merged {len(records)} runs from {len(args.reports)} reports into {summary} and {runs}")
    return 0


def _init(args: argparse.Namespace) -> int:
    from functools import partial

    from .gate.init import init_repository
    from .mining.seed import recent_history

    _at_least(("--limit", args.limit, 1))
    setup = init_repository(args.path, args.force, partial(recent_history, revisions=args.revisions, limit=args.limit))
    print("\n".join([*setup.notes, *(f"wrote {line}" for line in setup.written)]))
    print(f"next: {setup.next_command}")
    return 0


def _tasks_check(config: pytest.Config, args: argparse.Namespace) -> int:
    from .macros import MacroRegistry
    from .plugin.extensions import macro_roots
    from .process import interrupts
    from .run.taskcheck import check_task_files

    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: must be at least 1")
    interrupts.install()
    macros = MacroRegistry.load(macro_roots(config, args.macros))
    sandbox = _sandbox(config, args.sandbox)
    print(f"granularity tasks check: {sandbox.describe()}", file=sys.stderr)
    files = _task_files(args.paths)
    failed = done = 0
    adversaries = not args.no_adversaries
    try:
        for path, result in zip(files, check_task_files(files, macros, adversaries, args.jobs, sandbox)):
            done += 1
            status = "ok" if result.ok else "FAILED"
            print(f"[{done}/{len(files)}] {status} {path.parent.name}", flush=True)
            for problem in result.problems:
                print("    " + problem.replace("\n", "\n    "))
            failed += not result.ok
    except KeyboardInterrupt:  # its runs' processes and folders are gone already (``interrupts``)
        print(f"granularity tasks check: interrupted after {done} of {len(files)} tasks", file=sys.stderr)
        return 130
    print(f"{len(files) - failed} of {len(files)} tasks pass every check")
    return 1 if failed else 0


def _tasks_mine(config: pytest.Config, args: argparse.Namespace) -> int:
    from .macros import MacroRegistry
    from .mining.miner import MineSettings, mine, print_progress
    from .mining.report import summary_table
    from .mining.shards import parse_shard
    from .plugin.extensions import macro_roots
    from .process import interrupts

    _at_least(("--limit", args.limit, 1), ("--jobs", args.jobs, 1), ("--repeats", args.repeats, 1))
    if args.timeout <= 0:
        raise InputError(f"--timeout {args.timeout:g}: must be above 0")
    shard = parse_shard(args.shard) if args.shard is not None else None
    _check_output_folder(args.output)
    interrupts.install()
    macros = MacroRegistry.load(macro_roots(config, args.macros))
    sandbox = _sandbox(config, args.sandbox)
    print(f"granularity tasks mine: {sandbox.describe()}", file=sys.stderr)
    settings = MineSettings(args.revisions, args.limit, args.jobs, args.repeats, args.timeout, shard=shard)
    summary = mine(args.repo, args.output, macros, sandbox, settings, print_progress)
    if summary.interrupted:
        decided = summary.kept + sum(summary.reasons.values())
        print(
            f"granularity tasks mine: interrupted with {decided} of {summary.candidates} candidates decided;"
            " run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    print(summary_table(summary))
    return 0


def _tasks_merge(args: argparse.Namespace) -> int:
    from .mining.merge import merge_shards

    _check_output_folder(args.output)
    merged = merge_shards(args.folders, args.output)
    print(f"merged {merged.tasks} tasks and {merged.commits} decisions of {merged.shards} folders into {args.output}")
    return 0


def _macros_mine(config: pytest.Config, args: argparse.Namespace) -> int:
    from .evolution.miner import mine_macros
    from .evolution.report import mined_table

    _at_least(("--min-support", args.min_support, 1))
    sandbox = _sandbox(config, args.sandbox)
    print(f"granularity macros mine: {sandbox.describe()}", file=sys.stderr)
    try:
        mined = mine_macros(args.sources, args.output, sandbox, args.tasks, args.min_support)
    finally:
        sandbox.servers.stop()
    print(mined_table(mined, args.min_support))
    return 0


def _at_least(*options: tuple[str, int | None, int]) -> None:
    """Refuse an option given below its least value, naming it (one not given is None, and fine)."""
    for name, value, least in options:
        if value is not None and value < least:
            raise InputError(f"{name} {value}: must be at least {least}")


def _check_output_folder(path: Path) -> None:
    """Refuse, before any work, an output folder that names a file or a device or cannot be written."""
    from .plugin.output_paths import folder_problem

    problem = folder_problem(path)
    if problem:
        raise InputError(f"-o: {problem}")


def _sandbox(config: pytest.Config, mode: str | None) -> Sandbox:
    """The sandbox a command's runs use: ``mode`` as given, else the ``granularity_sandbox`` ini key."""
    import pytest

    from .plugin.options import sandbox_of
    from .process.sandbox import select

    try:
        return sandbox_of(config) if mode is None else select(mode, "--sandbox")
    except pytest.UsageError as exc:
        raise InputError(str(exc)) from None


Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Command] = {
    "tasks check": _with_config(_tasks_check, "paths"),
    "tasks mine": _with_config(_tasks_mine),
    "tasks merge": _tasks_merge,
    "tasks stats": _tasks_stats,
    "report": _report,
    "merge": _merge,
    "fsm": _fsm,
    "check-contracts": _check_contracts,
    "macros": _with_config(_macros),
    "macros mine": _with_config(_macros_mine),
    "export-mcp": _with_config(_export_mcp),
    "serve-mcp": _serve_mcp,
    "train": _train,
    "explain": _explain,
    "init": _init,
}
"""Each subcommand (``tasks`` ones as ``tasks NAME``) and what runs it: what ``main`` dispatches on."""


if __name__ == "__main__":
    sys.exit(main())
