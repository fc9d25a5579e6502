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
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from corpus_calls import Call, derive
from corpus_packages import COMMON_ARGS, CORPUS, Package, fetch

from pytest_granularity.macros import MacroContext, MacroRegistry, invoke
from pytest_granularity.pytest_process import run_pytest
from pytest_granularity.workspace import Workspace

TEST_TIMEOUT = 300.0
MACROS = ("move_module", "replace_and_verify", "summarize_module")


@dataclass(frozen=True)
class Result:
    call: str
    package: str
    macro: str
    kind: str
    verdict: str
    detail: str


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "pytest-granularity" / "corpus")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2; the machine is shared)")
    parser.add_argument("--moves", type=int, default=24, help="move_module calls per package at most")
    parser.add_argument("--others", type=int, default=5, help="modules per package for the other two macros")
    parser.add_argument("--package", action="append", help="only these packages (repeatable)")
    parser.add_argument("--json", type=Path, help="write every call's result here")
    options = parser.parse_args(argv)
    packages = [p for p in CORPUS if not options.package or p.name in options.package]
    trees = {p.name: fetch(p, options.cache) for p in packages}
    with ProcessPoolExecutor(max_workers=options.jobs) as pool:
        suites = dict(zip(trees, pool.map(suite_args, packages, trees.values())))
        calls = [c for p in packages for c in derive(p.name, trees[p.name], options.moves, options.others)]
        results = list(pool.map(run_call, calls, [trees[c.package] for c in calls], [suites[c.package] for c in calls]))
    if options.json:
        options.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    print(report(packages, suites, results))
    return 1 if any(r.verdict == "defect" for r in results) else 0


def suite_args(package: Package, tree: Path) -> tuple[str, ...]:
    """The package's pytest arguments, with every test that fails on the untouched sources deselected."""
    args = COMMON_ARGS + package.pytest_args
    first = run_pytest(tree, [*args, "-rfE"], TEST_TIMEOUT)
    failing = sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+::\S+)", first.output, re.MULTILINE)))
    args += tuple(f"--deselect={node}" for node in failing)
    if not run_pytest(tree, list(args), TEST_TIMEOUT).passed:
        raise SystemExit(f"{package.folder}: the untouched suite fails even after deselecting {failing}")
    return args


def run_call(call: Call, tree: Path, tests: tuple[str, ...]) -> Result:
    registry = MacroRegistry.load()
    with tempfile.TemporaryDirectory(prefix="granularity-corpus-") as scratch:
        root = Path(scratch) / "ws"
        shutil.copytree(tree, root, symlinks=True)
        workspace = Workspace(root)
        macro = registry.get(call.macro)
        assert macro is not None
        outcome = invoke(macro, MacroContext(workspace, dict(call.args), tests, TEST_TIMEOUT))
        changed = bool(workspace.changes())
        if outcome.ok:
            suite = run_pytest(root, list(tests), TEST_TIMEOUT)
            verdict = "correct" if suite.passed else "defect"
            detail = outcome.reason if suite.passed else "reported success, suite fails:\n" + suite.tail(12)
        elif outcome.failure_class == "precondition_mismatch" and not changed:
            verdict, detail = "refused", outcome.reason
        else:
            verdict, detail = "defect", f"{outcome.failure_class} (changed files: {changed}): {outcome.reason}"
    return Result(call.label, call.package, call.macro, call.kind, verdict, detail)


REASONS = (
    (
        r"through an import of its parent package|bound to more than a module|is not inside that module",
        "reached through a name it cannot rewrite",
    ),
    (r"import \*", "a star import from the parent package may bind its name where it is read"),
    (r"bound only as a side effect", "the parent's __init__ reads its name, bound only by importing it"),
    (r"installs an import hook", "an import hook builds the package's module names at run time"),
    (r"f-string", "an f-string spells its dotted name"),
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


def report(packages: list[Package], suites: dict[str, tuple[str, ...]], results: list[Result]) -> str:
    """Markdown: the packages, then calls and verdicts per package and macro, then refusal reasons."""
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
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
