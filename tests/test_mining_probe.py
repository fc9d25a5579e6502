"""Which runs decide a candidate's tests: the parent runs the changed test files alone unless none of their tests
passes there, and the suite is the unchanged files that pass on the commit on every repeat."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pytest_granularity.mining import probe
from pytest_granularity.mining.probe import Rejected, Side, decisive_tests

CHANGED = {"tests/test_new.py"}
UNCHANGED = {"tests/test_old.py", "tests/test_other.py"}


@dataclass(frozen=True)
class Probe:
    """What ``decisive_tests`` reads of a task: its selection, and no pytest spec."""

    verifier_select: tuple[str, ...] = tuple(sorted(CHANGED | UNCHANGED))
    pytest: None = None


@dataclass
class Runs:
    """A stand-in for ``run_side``: each side's outcomes per test, filtered by the run's selection."""

    parent: dict[str, str]
    commit: dict[str, str]
    made: list[tuple[bool, tuple[str, ...], bool]] = field(default_factory=list)

    def __call__(self, task, solved, sandbox, repeat=0, each=True) -> Side:
        select = tuple(task.verifier_select)
        self.made.append((solved, select, each))
        outcomes = self.commit if solved else self.parent
        chosen = {n: o for n, o in outcomes.items() if any(n == s or n.startswith(s + "::") for s in select)}
        return Side(chosen, ())


def _decide(monkeypatch, runs: Runs, repeats: int = 2):
    monkeypatch.setattr(probe, "run_side", runs)
    return decisive_tests(Probe(), CHANGED, UNCHANGED, repeats, sandbox=None)


def test_the_parent_runs_only_the_changed_files_and_the_suite_is_what_passes_on_the_commit(monkeypatch):
    runs = Runs(
        parent={"tests/test_new.py::test_a": "passed", "tests/test_new.py::test_b": "failed"},
        commit={
            "tests/test_new.py::test_a": "passed",
            "tests/test_new.py::test_b": "passed",
            "tests/test_old.py::test_c": "passed",
            "tests/test_other.py::test_d": "failed",
        },
    )
    decided = _decide(monkeypatch, runs)
    assert decided.fail_to_pass == ["tests/test_new.py::test_b"]
    assert decided.pass_to_pass_files == ["tests/test_old.py"]
    assert runs.made[0] == (False, ("tests/test_new.py",), True)  # the parent: the changed files alone
    # the last repeat: the fail-to-pass tests on each side as the verifier runs them, then the suite on the commit
    assert runs.made[2:] == [
        (False, ("tests/test_new.py::test_b",), False),
        (True, ("tests/test_new.py::test_b",), False),
        (True, ("tests/test_old.py",), True),
    ]


def test_where_no_changed_test_passes_on_the_parent_every_file_runs_there_to_find_why(monkeypatch):
    runs = Runs(parent={}, commit={"tests/test_new.py::test_a": "passed", "tests/test_old.py::test_c": "passed"})
    with pytest.raises(Rejected) as rejected:
        _decide(monkeypatch, runs)
    assert rejected.value.reason == "cannot import at the parent"
    assert [select for solved, select, _ in runs.made if not solved][-1] == tuple(sorted(CHANGED | UNCHANGED))


def test_a_suite_file_that_fails_on_a_repeat_is_left_out_and_counted(monkeypatch):
    runs = Runs(
        parent={"tests/test_new.py::test_a": "failed", "tests/test_old.py::test_c": "passed"},
        commit={"tests/test_new.py::test_a": "passed", "tests/test_old.py::test_c": "passed"},
    )
    original = runs.__call__

    def flaky(task, solved, sandbox, repeat=0, each=True) -> Side:
        side = original(task, solved, sandbox, repeat, each)
        if repeat and solved:
            return Side({**side.outcomes, "tests/test_old.py::test_c": "failed"}, ())
        return side

    monkeypatch.setattr(probe, "run_side", flaky)
    decided = decisive_tests(Probe(), CHANGED, UNCHANGED, 2, sandbox=None)
    assert decided.fail_to_pass == ["tests/test_new.py::test_a"]
    assert decided.pass_to_pass_files == [] and decided.unsteady == 1
