"""The macro corpus benchmark: the built-in macros on real packages they were not written for.

For every package in ``corpus_packages.CORPUS``: fetch its source distribution (cached), run its
own suite untouched and deselect what fails there, derive macro calls from its code
(``corpus_calls``), and run each call in a throw-away copy through ``invoke`` (the benchmark's
path), then the package's own suite. Each call is one of:

- correct: the macro reported success and the package's suite passes afterwards;
- clean refusal: ``precondition_mismatch`` and the workspace byte-identical;
- defect: anything else (a success that leaves the suite failing, a failure that changed files,
  a crash).

Run: ``PYTHONPATH=$PWD python scripts/macro_corpus.py [--cache DIR] [--jobs 2] [--json OUT]``.
Not part of the test suite: it downloads sources and runs about 200 test-suite runs.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from corpus_calls import Call, derive
from corpus_packages import COMMON_ARGS, CORPUS, Package, fetch

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroContext, MacroRegistry, invoke
from pytest_granularity.process.pytest_process import PytestRun, run_pytest

TEST_TIMEOUT = 300.0
MACROS = ("move_module", "replace_and_verify", "summarize_module")
TOOLS = ("macro", "rope")


@dataclass(frozen=True)
class Result:
    call: str
    package: str
    macro: str
    kind: str
    verdict: str
    detail: str
    tool: str = "macro"
    seconds: float = 0.0
    """The tool's own work: for the macro its call less the test runs of its validation."""
    diff: str = ""
    """What a defect left in the copy."""


@dataclass(frozen=True)
class TimedContext(MacroContext):
    """A macro context that adds up how long its test runs took, so a call's time is the macro's own.

    The total lives in shared memory: a macro's parts may run in a forked child process, which asks the
    plugin's process to run its tests; only the process that runs them counts.
    """

    test_seconds: Synchronized[float] = field(default_factory=lambda: multiprocessing.Value("d", 0.0))

    def run_tests(self, paths: list[str] | None = None) -> PytestRun:
        if getattr(self, "tests_runner", None) is not None:
            return super().run_tests(paths)  # a child asking the plugin's process, which times the run itself
        started = time.monotonic()
        try:
            return super().run_tests(paths)
        finally:
            with self.test_seconds.get_lock():
                self.test_seconds.value += time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "pytest-granularity" / "corpus")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2; the machine is shared)")
    parser.add_argument("--moves", type=int, default=24, help="move_module calls per package at most")
    parser.add_argument("--others", type=int, default=5, help="modules per package for the other two macros")
    parser.add_argument("--package", action="append", help="only these packages (repeatable)")
    parser.add_argument("--json", type=Path, help="write every call's result here")
    parser.add_argument("--no-rope", action="store_true", help="skip running rope on the move_module calls")
    parser.add_argument(
        "--rope-from", type=Path, help="rope's results from an earlier run's --json (they do not depend on the macros)"
    )
    options = parser.parse_args(argv)
    packages = [p for p in CORPUS if not options.package or p.name in options.package]
    trees = {p.name: fetch(p, options.cache) for p in packages}
    with ProcessPoolExecutor(max_workers=options.jobs) as pool:
        suites = dict(zip(trees, pool.map(suite_args, packages, trees.values())))
        calls = [c for p in packages for c in derive(p.name, trees[p.name], options.moves, options.others)]
        jobs = [(c, "macro") for c in calls]
        jobs += [] if options.no_rope or options.rope_from else [(c, "rope") for c in calls if c.macro == "move_module"]
        results = list(pool.map(run_call, *zip(*[(c, tool, trees[c.package], suites[c.package]) for c, tool in jobs])))
    if options.rope_from:
        labels = {c.label for c in calls}
        earlier = [Result(**r) for r in json.loads(options.rope_from.read_text())]
        results += [r for r in earlier if r.tool == "rope" and r.call in labels]
    if options.json:
        options.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    print(report(packages, suites, results))
    return 1 if any(r.verdict == "defect" and r.tool == "macro" for r in results) else 0


def suite_args(package: Package, tree: Path) -> tuple[str, ...]:
    """The package's pytest arguments, with every test that fails on the untouched sources deselected."""
    args = COMMON_ARGS + package.pytest_args
    first = run_pytest(tree, [*args, "-rfE"], TEST_TIMEOUT)
    failing = sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+::\S+)", first.output, re.MULTILINE)))
    args += tuple(f"--deselect={node}" for node in failing)
    if not run_pytest(tree, list(args), TEST_TIMEOUT).passed:
        raise SystemExit(f"{package.folder}: the untouched suite fails even after deselecting {failing}")
    return args


def run_call(call: Call, tool: str, tree: Path, tests: tuple[str, ...]) -> Result:
    """One call by one tool in its own throw-away copy, judged by the package's own suite."""
    with tempfile.TemporaryDirectory(prefix="granularity-corpus-") as scratch:
        root = Path(scratch) / "ws"
        shutil.copytree(tree, root, symlinks=True)
        workspace = Workspace(root)
        if tool == "rope":
            verdict, detail, seconds = _by_rope(call, workspace, tests)
        else:
            verdict, detail, seconds = _by_macro(call, workspace, tests)
        diff = workspace.diff() if verdict == "defect" else ""
    return Result(call.label, call.package, call.macro, call.kind, verdict, detail, tool, seconds, diff)


def _by_macro(call: Call, workspace: Workspace, tests: tuple[str, ...]) -> tuple[str, str, float]:
    macro = MacroRegistry.load().get(call.macro)
    assert macro is not None
    ctx = TimedContext(workspace, dict(call.args), tests, TEST_TIMEOUT)
    outcome = invoke(macro, ctx)
    seconds = outcome.seconds - ctx.test_seconds.value
    if outcome.ok:
        return (*_judged(workspace.root, tests, outcome.reason), seconds)
    if outcome.failure_class == "precondition_mismatch" and not workspace.changes():
        return "refused", outcome.reason, seconds
    return "defect", f"{outcome.failure_class} (changed files: {bool(workspace.changes())}): {outcome.reason}", seconds


def _by_rope(call: Call, workspace: Workspace, tests: tuple[str, ...]) -> tuple[str, str, float]:
    from rope_moves import rope_move

    started = time.monotonic()
    refusal = rope_move(workspace.root, call.args["source"], call.args["destination"])
    seconds = time.monotonic() - started
    if refusal is None:
        return (*_judged(workspace.root, tests, "rope moved it"), seconds)
    if not workspace.changes():
        return "refused", refusal, seconds
    return "defect", f"{refusal} (changed files: True)", seconds


def _judged(root: Path, tests: tuple[str, ...], reason: str) -> tuple[str, str]:
    """A reported success is correct only when the package's own suite passes afterwards."""
    suite = run_pytest(root, list(tests), TEST_TIMEOUT)
    return ("correct", reason) if suite.passed else ("defect", "reported success, suite fails:\n" + suite.tail(12))


REASONS = (
    (
        r"through an import of its parent package|bound to more than a module|is not inside that module",
        "reached through a name it cannot rewrite",
    ),
    (r"import \*", "a star import from the parent package may bind its name where it is read"),
    (r"bound only as a side effect", "the parent's __init__ reads its name, bound only by importing it"),
    (r"installs an import hook", "an import hook builds the package's module names at run time"),
    (r"f-string", "an f-string spells its dotted name"),
    (r"escaped for a regular expression", "a string spells its dotted name escaped for a regular expression"),
    (r"reads the package of", "a file reads its __package__, which the move changes"),
    (r"which the import hook fills in only", "a file reads its mirror name where the import hook would not serve it"),
    (r"does not parse", "a file does not parse"),
    (r"occurs \d+ times", "the text occurs more than once"),
    (r"no public top-level", "no public top-level class or function"),
    (r"docstring is not a plain", "the docstring is not a plain triple-quoted string"),
    (r"already exists", "the destination exists"),
)
TEXT_FILE = re.compile(r"(\S+) \(not Python\) refers to")


def reason_label(reason: str) -> list[str]:
    """Each distinct kind of reason in a refusal (a refusal may give several)."""
    labels = {label for pattern, label in REASONS if re.search(pattern, reason)}
    labels |= {f"a non-Python file names the module ({Path(rel).name})" for rel in TEXT_FILE.findall(reason)}
    return sorted(labels) or [reason]


def report(packages: list[Package], suites: dict[str, tuple[str, ...]], everything: list[Result]) -> str:
    """Markdown: packages, verdicts per package and macro, refusal reasons, then rope beside move_module."""
    results = [r for r in everything if r.tool == "macro"]
    rows = ["| package | style | untouched tests deselected |", "| --- | --- | ---: |"]
    rows += [
        f"| {p.name} {p.version} | {p.style} | {sum(a.startswith('--deselect') for a in suites[p.name])} |"
        for p in packages
    ]
    rows += [
        "",
        "| package | macro | calls | correct | clean refusals | defects |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    by_cell: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in results:
        by_cell[r.package, r.macro][r.verdict] += 1
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for p in packages:
        for m in MACROS:
            c = by_cell[p.name, m]
            totals[m].update(c)
            rows.append(f"| {p.name} | {m} | {sum(c.values())} | {c['correct']} | {c['refused']} | {c['defect']} |")
    for m in MACROS:
        c = totals[m]
        rows.append(f"| **all** | {m} | {sum(c.values())} | {c['correct']} | {c['refused']} | {c['defect']} |")
    reasons: Counter[tuple[str, str]] = Counter()
    for r in results:
        if r.verdict == "refused":
            reasons.update((r.macro, label) for label in reason_label(r.detail))
    lines = [
        "\n".join(rows),
        "",
        "| macro | refusal reason (a refusal may give several) | refusals citing it |",
        "| --- | --- | ---: |",
    ]
    lines += [
        f"| {m} | {label} | {n} |"
        for (m, label), n in sorted(reasons.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    ]
    moves = totals["move_module"]
    lines += ["", f"move_module correct rate: {moves['correct']}/{sum(moves.values())}"]
    defects = [r for r in results if r.verdict == "defect"]
    lines += ["", f"defects: {len(defects)}"] + [f"- {r.call}: {r.detail}" for r in defects]
    if any(r.tool == "rope" for r in everything):
        lines += ["", side_by_side(packages, everything), "", peer_differences(everything)]
    return "\n".join(lines)


def side_by_side(packages: list[Package], results: list[Result]) -> str:
    """Per package, each tool's verdicts on the same move_module calls and its median seconds per call."""
    rows = [
        "| package | moves | right (macro / rope) | refused (macro / rope) | defects (macro / rope) "
        "| s per call, median (macro / rope) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    moves = [r for r in results if r.macro == "move_module"]
    for name in [p.name for p in packages] + ["**all**"]:
        mine = [r for r in moves if name in (r.package, "**all**")]
        by_tool = {t: [r for r in mine if r.tool == t] for t in TOOLS}
        cells = [" / ".join(str(sum(r.verdict == v for r in by_tool[t])) for t in TOOLS) for v in VERDICTS]
        times = " / ".join(f"{statistics.median(r.seconds for r in by_tool[t]):.2f}" for t in TOOLS)
        rows.append(f"| {name} | {len(by_tool['macro'])} | {' | '.join(cells)} | {times} |")
    return "\n".join(rows)


VERDICTS = ("correct", "refused", "defect")


def peer_differences(results: list[Result]) -> str:
    """The calls where the two tools' verdicts differ, with the refusal's reason or the defect's diff."""
    pairs: dict[str, dict[str, Result]] = defaultdict(dict)
    for r in results:
        if r.macro == "move_module":
            pairs[r.call][r.tool] = r
    lines = []
    for call, pair in sorted(pairs.items()):
        if len(pair) == 2 and pair["macro"].verdict != pair["rope"].verdict:
            lines.append(f"- {call}: macro {pair['macro'].verdict}, rope {pair['rope'].verdict}")
            lines += [f"  - {t}: {pair[t].detail.splitlines()[0][:300]}" for t in TOOLS if pair[t].verdict != "correct"]
            lines += [_fenced(pair[t].diff) for t in TOOLS if pair[t].diff]
    return "\n".join(lines or ["(the two tools agree on every move)"])


def _fenced(diff: str, limit: int = 60) -> str:
    shown = diff.splitlines()
    more = [f"... ({len(shown) - limit} more lines)"] if len(shown) > limit else []
    return "\n".join(["```diff", *shown[:limit], *more, "```"])


if __name__ == "__main__":
    sys.exit(main())
