"""Which of a commit's tests decide its task: fail on the parent, pass on the commit, every time.

Each side is run the verifier's way (``verifier.hidden_run``: the commit's test tree in the hidden
folder, its own conftests and none of the workspace's), so a test chosen here is judged exactly as
the task's verifier will judge it. A test that does not give the same outcome on every repeat is
dropped as flaky.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..core.tasks import Task
from ..core.workspace import Workspace, solution_files
from ..process.sandbox import Sandbox
from ..verifier.verify import VERIFIER_DIR, hidden_run

PREFIX = VERIFIER_DIR + "/"
FAILING = ("failed", "error")
MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
EVIDENCE_LINES = 3


class Rejected(Exception):
    """A candidate that cannot become a task, with its one reason (``REASONS``) and the detail."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Side:
    """One run's outcome per test (node ids relative to the verifier folder) and its collection errors."""

    outcomes: Mapping[str, str]
    errors: tuple[str, ...]
    output: str = ""
    """The end of the run's output: the evidence a rejection carries."""


@dataclass(frozen=True)
class Decisive:
    fail_to_pass: list[str]
    pass_to_pass_files: list[str]
    unsteady: int = 0
    """Pass-to-pass files dropped because a repeat changed one of their tests' outcomes."""


def run_side(task: Task, solved: bool, sandbox: Sandbox, repeat: int = 0, each: bool = True) -> Side:
    """The hidden tests on the parent (``solved`` False) or on the reference solution; a ``repeat`` above 0 runs
    them again for real, where the same run's remembered result would otherwise be given back. An ``each`` run
    reads on past a test file that cannot be collected; without it, it is the run a verdict makes, the same
    pytest run, which ``tasks check`` then finds made (the repeat made it for real: no earlier run was it)."""
    with Workspace.for_task(task, reuse=True) as workspace:
        if solved:
            workspace.apply(solution_files(task), task.solution_delete)
        scope = f"repeat {repeat}" if repeat and each else ""
        run = hidden_run(task, workspace, sandbox, each=each, memo_scope=scope)
    if run.timed_out:
        raise Rejected("timeout", f"the tests ran past {task.verifier_timeout:g}s on the {_side(solved)}")
    results = run.results or {}
    outcomes = {_local(node): outcome for node, outcome in results.get("outcomes", {}).items()}
    outcomes = {node: outcome for node, outcome in outcomes.items() if node is not None}
    errors = tuple(filter(None, (_local(node) for node in results.get("errors", []))))
    return Side(outcomes, errors, run.tail())  # type: ignore[arg-type]


def decisive_tests(
    task: Task, changed_tests: set[str], unchanged_tests: set[str], repeats: int, sandbox: Sandbox
) -> Decisive:
    """The fail-to-pass tests (confirmed ``repeats`` times on each side) and the unchanged test files whose
    every test passes on the commit, every time; a :class:`Rejected` names why there are none.

    The parent runs only the commit's changed test files, where fail-to-pass tests live: the unchanged
    files are the project's suite, which the verifier asks to pass on the agent's workspace, as it passes
    on the commit. Only where no changed test passes on the parent does it run them all, to tell a parent
    that cannot import its own package from tests that fail on what the commit adds."""
    before = run_side(replace(task, verifier_select=tuple(sorted(changed_tests))), False, sandbox)
    after = run_side(task, True, sandbox)
    if not after.outcomes:
        _missing_module(after, task)
        raise Rejected("tests fail after", _evidence(after, _collection(after) or "no test ran on the commit"))
    if "passed" not in before.outcomes.values():
        before = run_side(task, False, sandbox)
    if not before.outcomes and not (before.errors and {_file(e) for e in before.errors} <= changed_tests):
        # Collection errors only in the files the commit changed are its tests failing before (they import what
        # it adds); an unchanged file, a conftest or the package failing to import is the parent's own.
        _missing_module(before, task)
        problem = _collection(before) or "no test could run on the parent"
        raise Rejected("cannot import at the parent", _evidence(before, problem))
    passing_after = [n for n, o in after.outcomes.items() if o == "passed" and _file(n) in changed_tests]
    if not passing_after:
        _missing_module(after, task)
        problem = "no test of the commit's changed test files passes on the commit"
        raise Rejected("tests fail after", _evidence(after, problem))
    chosen = sorted(n for n in passing_after if before.outcomes.get(n, "error") in FAILING)
    if not chosen:
        raise Rejected("tests pass before", f"all {len(passing_after)} passing tests pass on the parent too")
    passing = _passing_files(after, unchanged_tests)
    stable, steady = _confirmed(task, chosen, passing, repeats, sandbox)
    if not stable:
        raise Rejected("flaky", f"none of {len(chosen)} fail-to-pass tests gave the same outcomes on every repeat")
    return Decisive(stable, steady, len(passing) - len(steady))


def still_passing(parent_tests: Task, sandbox: Sandbox) -> list[str]:
    """The parent's own versions of the test files the commit changed, test by test: those that pass on the
    reference solution. With the unchanged files that pass there, they are the tests an agent sees in the
    workspace that must pass at its end (``tests`` and ``verifier.suite``). In the order they ran, which is
    the file's: named on the command line, tests run in the order given, and a project's tests can depend on
    their order (one registers a class that a later one counts)."""
    if not parent_tests.verifier_select:
        return []
    return [n for n, o in run_side(parent_tests, True, sandbox).outcomes.items() if o == "passed"]


def _confirmed(
    task: Task, chosen: list[str], passing: list[str], repeats: int, sandbox: Sandbox
) -> tuple[list[str], list[str]]:
    """The fail-to-pass tests that keep their outcomes on ``repeats - 1`` more runs of each side, and the
    pass-to-pass files that keep passing on the commit's, made for real: a test that changes outcome would
    make the task's verdict a coin toss. The last repeat runs the fail-to-pass tests as the task's verifier
    will on the untouched and the solved workspace, so ``tasks check`` finds those verdicts made."""
    kept, steady = set(chosen), set(passing)
    for repeat in range(1, repeats):
        last = repeat == repeats - 1
        tests = replace(task, verifier_select=tuple(chosen))
        before, after = (
            run_side(tests, False, sandbox, repeat, not last),
            run_side(tests, True, sandbox, repeat, not last),
        )
        kept &= {n for n in chosen if after.outcomes.get(n) == "passed" and before.outcomes.get(n, "error") in FAILING}
        if passing:
            suite = run_side(replace(task, verifier_select=tuple(passing)), True, sandbox, repeat)
            steady &= set(_passing_files(suite, steady))
    return sorted(kept), sorted(steady)


def _passing_files(side: Side, files: set[str]) -> list[str]:
    """The ``files`` whose tests all pass on ``side`` (and ran there): the project's own suite for the task."""
    good: dict[str, bool] = {}
    for node, outcome in side.outcomes.items():
        path = _file(node)
        if path in files:
            good[path] = good.get(path, True) and outcome == "passed"
    for error in side.errors:
        good[_file(error)] = False
    return sorted(path for path, passed in good.items() if passed)


def _missing_module(side: Side, task: Task) -> None:
    """A run that failed for a module this Python lacks is rejected for that, by name: installing it is the fix.
    A module of the project's own is no install's to give: the error is the evidence of another reason."""
    found = MISSING.search(side.output)
    project = task.pytest.import_roots if task.pytest is not None else {}
    if found and found.group(1).split(".")[0] not in project:
        raise Rejected("missing module", found.group(1).split(".")[0])


def _evidence(side: Side, problem: str) -> str:
    """The problem and the first lines of the error that decided it (pytest's ``E`` lines, else its last lines)."""
    lines = [line.strip() for line in side.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("E ", "ERROR", "ImportError", "INTERNALERROR"))]
    shown = (errors or lines[-EVIDENCE_LINES:])[:EVIDENCE_LINES]
    return " | ".join([problem, *shown])


def _local(node: str) -> str | None:
    """A node id relative to the verifier folder; None for the canary and anything outside the folder."""
    if not node.startswith(PREFIX) or "test_granularity_canary_" in node:
        return None
    return node[len(PREFIX) :]


def _file(node: str) -> str:
    return node.split("::", 1)[0]


def _collection(side: Side) -> str:
    return f"{len(side.errors)} test files could not be collected: {', '.join(side.errors[:3])}" if side.errors else ""


def _side(solved: bool) -> str:
    return "commit" if solved else "parent"
