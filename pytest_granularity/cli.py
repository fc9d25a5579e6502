"""The ``granularity`` command: tools around the plugin that are not a test run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .core.tasks import find_task_files, load_task
from .process.sandbox import MODES as SANDBOX_MODES

if TYPE_CHECKING:
    from contextlib import ExitStack

    import pytest

    from .verifier.served_verifier import ServedVerifier


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="granularity", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    tasks = commands.add_parser("tasks", help="work with task files").add_subparsers(
        dest="tasks_command", required=True
    )
    check = tasks.add_parser(
        "check",
        help="prove every task honest: verifier fails before, passes after the reference, resists cheating agents",
    )
    check.add_argument("paths", nargs="*", type=Path, default=[Path("benchmark_tasks")])
    check.add_argument(
        "--macros", type=Path, action="append", default=[], metavar="PATH", help="a folder of extra macros"
    )
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
        "macros", help="list macros with status, owner, version and (from a report) audit figures"
    )
    listing.add_argument(
        "--macros", type=Path, action="append", default=[], metavar="PATH", help="a folder of extra macros"
    )
    listing.add_argument("--report", type=Path, help="a saved --granularity-report, for the audit figures")
    mcp = commands.add_parser("export-mcp", help="print every macro as an MCP tool definition (JSON)")
    mcp.add_argument(
        "--macros", type=Path, action="append", default=[], metavar="PATH", help="a folder of extra macros"
    )
    serve = commands.add_parser(
        "serve-mcp",
        help="serve micro tools and contract-checked macros to an MCP client over stdio (needs the 'mcp' extra)",
    )
    serve.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("."),
        help="the repository to work on (default: here); changed in place unless --copy",
    )
    serve.add_argument(
        "--policy", default="heuristic", help="micro, macro, hybrid, heuristic or learned (default: heuristic)"
    )
    serve.add_argument(
        "--macros", type=Path, action="append", default=[], metavar="DIR", help="a folder of extra macros"
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
    args = parser.parse_args(argv)
    if args.command == "check-contracts":
        import pytest

        return int(pytest.main(["--granularity-contracts", "-p", "no:cacheprovider", *map(str, args.paths)]))
    if args.command == "macros":
        from .plugin.pytest_view import with_pytest_config

        return with_pytest_config([], lambda config: _macros(config, args.macros, args.report))
    if args.command == "export-mcp":
        from .plugin.pytest_view import with_pytest_config

        return with_pytest_config([], lambda config: _export_mcp(config, args.macros))
    if args.command == "fsm":
        from .run.executor import transition_table

        print(transition_table())
        return 0
    if args.command == "report":
        return _report(args)
    if args.command == "merge":
        return _merge(args.reports, args.output)
    if args.command == "train":
        return _train(args)
    if args.command == "serve-mcp":
        return _serve_mcp(args)
    if args.command == "explain":
        return _explain(args.task, args.router)
    if args.tasks_command == "stats":
        return _tasks_stats(args.paths)
    if args.jobs < 1:
        print(f"--jobs {args.jobs}: must be at least 1", file=sys.stderr)
        return 2
    from .plugin.pytest_view import with_pytest_config

    return with_pytest_config(args.paths, lambda config: _tasks_check(config, args, not args.no_adversaries))


def _task_ids(root: Path) -> list[str]:
    return [load_task(path).id for path in find_task_files([root])]


def _check_trainable(root: Path) -> None:
    """Refuse, before any run, tasks that held-out evaluation cannot split: it trains without each family in turn,
    so with one family it would fit a tree on nothing."""
    files = find_task_files([root])
    if not files:
        raise ValueError(f"--tasks: no {root}/**/task.yaml found")
    families = sorted({load_task(path).family for path in files})
    if len(families) < 2:
        raise ValueError(
            f"--tasks {root}: {len(files)} task(s), all of the family {families[0]}; training holds out each family"
            " in turn, so it needs tasks of at least two families"
        )


def _check_coverage(missing: list[str], args: argparse.Namespace) -> None:
    """Refuse, before any fitting, runs that do not cover every task under ``--tasks``."""
    if missing:
        named = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ValueError(
            f"--runs {args.runs}: no micro, macro and hybrid runs without a fault for {len(missing)} of the tasks"
            f" under {args.tasks} ({named}); give the runs of every task (train without --runs makes them),"
            " or point --tasks at the tasks they cover"
        )


def _train(args: argparse.Namespace) -> int:
    try:
        from .routing import training
    except ImportError:
        print("granularity train needs scikit-learn: pip install 'pytest-granularity[train]'", file=sys.stderr)
        return 2
    from .core.schemas import DefinitionError

    if args.save_runs is None:  # beside the router it trains: -o elsewhere leaves this repository's runs alone
        args.save_runs = args.output.parent / ".granularity" / "training-runs.jsonl"
    try:
        _check_outputs(("-o", args.output, ()), *(() if args.runs else (("--save-runs", args.save_runs, ()),)))
        _check_trainable(args.tasks)
        runs = training.read_runs(args.runs) if args.runs else training.fresh_runs(args.tasks)
        indexed = training.index_runs(runs)
        _check_coverage(training.uncovered(indexed, _task_ids(args.tasks)), args)
    except (DefinitionError, ValueError) as exc:
        print(f"granularity train: {exc}", file=sys.stderr)
        return 2
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
            raise ValueError(f"{option}: {problem}")


def _explain(path: Path, router_path: Path) -> int:
    from .core.tasks import TaskError
    from .routing.explain import explain_task
    from .routing.routers import RouterError

    try:
        text = explain_task(path, router_path)
    except (TaskError, RouterError) as exc:
        print(exc, file=sys.stderr)
        return 2
    print(text)
    return 0


def _serve_mcp(args: argparse.Namespace) -> int:
    try:
        from .mcp.server import serve_stdio
    except ImportError:
        print("granularity serve-mcp needs the MCP SDK: pip install 'pytest-granularity[mcp]'", file=sys.stderr)
        return 2
    from contextlib import ExitStack

    from .core.audit import AuditLog
    from .core.modes import PolicyName
    from .core.schemas import DefinitionError
    from .core.workspace import WorkspaceError
    from .macros import MacroRegistry
    from .mcp.tool_session import ServeSettings, ToolSession, default_audit_path, new_session_id, served_root
    from .process.sandbox import SandboxUnavailable, select
    from .routing.routers import Router, policy_named

    source = args.path.resolve()
    session_id = new_session_id()
    audit_path = (args.audit or default_audit_path(session_id)).resolve()
    try:
        if not source.is_dir():
            raise ValueError(f"PATH {args.path}: not a directory")
        _check_serve_numbers(args, audit_path)
        macros = MacroRegistry.load(args.macros)
        policy = policy_named(args.policy, args.router, macros)
        router = Router.load(args.router) if args.policy == PolicyName.LEARNED else None
        sandbox = select(args.sandbox, "--sandbox")
    except (ValueError, DefinitionError, SandboxUnavailable) as exc:
        print(f"granularity serve-mcp: {exc}", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        try:
            verifier = _served_verifier(args, source, stack)
        except ValueError as exc:
            print(f"granularity serve-mcp: {exc}", file=sys.stderr)
            return 2
        try:
            root = stack.enter_context(served_root(source, args.copy))
        except WorkspaceError as exc:
            print(f"granularity serve-mcp: --copy: {exc}", file=sys.stderr)
            return 2
        if root == audit_path or root in audit_path.parents:
            print(
                f"granularity serve-mcp: --audit {audit_path} is inside the served workspace;"
                " its lines would count as changes",
                file=sys.stderr,
            )
            return 2
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
        raise ValueError(f"--max-steps {args.max_steps}: must be at least 1 (a task needs a call to finish)")
    if not args.verify_timeout > 0:
        raise ValueError(f"--verify-timeout {args.verify_timeout:g}: must be more than 0 seconds")
    if audit_path.is_dir():
        raise ValueError(f"--audit {audit_path}: is a folder; name the log file (JSONL) to append to")
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


def _macros(config: pytest.Config, folders: list[Path], report: Path | None) -> int:
    from .core.schemas import DefinitionError
    from .gate.metrics import macro_audit
    from .macros import MacroRegistry
    from .plugin.extensions import macro_roots
    from .report.render import read_records, render

    try:
        registry = MacroRegistry.load(macro_roots(config, folders))
        audits = {a.macro: a for a in macro_audit(read_records(report))} if report else {}
    except (DefinitionError, OSError, ValueError) as exc:
        print(f"granularity macros: {exc}", file=sys.stderr)
        return 2
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


def _export_mcp(config: pytest.Config, folders: list[Path]) -> int:
    import json

    from .core.schemas import DefinitionError
    from .macros import MacroRegistry
    from .mcp.export import macro_tool, mcp_problems
    from .plugin.extensions import macro_roots

    try:
        tools = [macro_tool(m) for m in MacroRegistry.load(macro_roots(config, folders))]
    except DefinitionError as exc:
        print(f"bad macro definition: {exc}", file=sys.stderr)
        return 2
    problems = [f"{t['name']}: {p}" for t in tools for p in mcp_problems(t)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(json.dumps({"tools": tools}, indent=2, sort_keys=True))
    return 0


def _tasks_stats(paths: list[Path]) -> int:
    from collections import Counter

    from .core.tasks import FAMILIES, TaskError, load_task

    files = find_task_files(paths)
    if not files:
        print(f"no {', '.join(map(str, paths))}/**/task.yaml found", file=sys.stderr)
        return 2
    try:
        tasks = [load_task(p) for p in files]
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
    from .core.schemas import DefinitionError, read_text
    from .gate.metrics import epoch_summaries, summarize
    from .report.plot import write_plot
    from .report.render import read_records, render_report, update_markdown

    try:
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
    except (DefinitionError, OSError, ValueError) as exc:
        print(f"granularity report: {exc}", file=sys.stderr)
        return 2
    print(render_report(records, markdown=args.markdown, verbose=args.verbose))
    return 0


def _merge(reports: list[Path], output: Path) -> int:
    from .core.schemas import DefinitionError
    from .report.render import merged_records, write_report

    try:
        _check_outputs(("-o", output, (".jsonl",)))
        records = merged_records(reports)
    except (DefinitionError, OSError, ValueError) as exc:
        print(f"granularity merge: {exc}", file=sys.stderr)
        return 2
    summary, runs = write_report(output, records)
    print(f"merged {len(records)} runs from {len(reports)} reports into {summary} and {runs}")
    return 0


def _tasks_check(config: pytest.Config, args: argparse.Namespace, adversaries: bool) -> int:
    import pytest

    from .core.schemas import DefinitionError
    from .macros import MacroRegistry
    from .plugin.extensions import macro_roots
    from .plugin.settings import sandbox_of
    from .process import interrupts
    from .process.sandbox import SandboxUnavailable, select
    from .run.taskcheck import check_task_files

    paths, jobs = args.paths, args.jobs
    interrupts.install()
    try:
        macros = MacroRegistry.load(macro_roots(config, args.macros))
    except DefinitionError as exc:
        print(f"bad macro definition: {exc}", file=sys.stderr)
        return 2
    try:
        sandbox = sandbox_of(config) if args.sandbox is None else select(args.sandbox, "--sandbox")
    except (pytest.UsageError, SandboxUnavailable) as exc:
        print(f"granularity tasks check: {exc}", file=sys.stderr)
        return 2
    print(f"granularity tasks check: {sandbox.describe()}", file=sys.stderr)
    files = find_task_files(paths)
    if not files:
        print(f"no {', '.join(map(str, paths))}/**/task.yaml found", file=sys.stderr)
        return 2
    failed = done = 0
    try:
        for path, result in zip(files, check_task_files(files, macros, adversaries, jobs, sandbox)):
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


if __name__ == "__main__":
    sys.exit(main())
