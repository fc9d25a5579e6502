from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest

from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.core.workspace import Workspace, solution_files
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process import pytest_process
from pytest_granularity.process.pytest_process import PytestRun, run_pytest, test_time
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import RunSettings, run_task
from pytest_granularity.run.taskcheck import check_task_file
from pytest_granularity.verifier.verify import VERIFIER_DIR, hidden_run, judge, verify


def test_verifier_rejects_untouched_and_accepts_reference(fix_add):
    with Workspace.for_task(fix_add) as ws:
        assert not verify(fix_add, ws).accepted
        ws.apply(solution_files(fix_add), fix_add.solution_delete)
        verdict = verify(fix_add, ws)
        assert verdict.accepted and verdict.infrastructure_error is None
        assert not (ws.root / VERIFIER_DIR).exists()
        assert ws.changes().paths == ("calc/ops.py",)


def test_a_hanging_verifier_is_an_infrastructure_error(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import time\ndef test_hang():\n    time.sleep(30)\n"
    )
    with Workspace.for_task(fix_add) as ws:
        verdict = verify(dataclasses.replace(fix_add, verifier_timeout=1), ws)
    assert not verdict.accepted and "timed out after 1s" in verdict.infrastructure_error


def test_a_verdict_only_run_stops_at_the_first_failure(fix_add):
    """``first_failure``: the test after the first failure never runs (here it would hang the verifier
    past its timeout); the verdict and its reason are the failure's."""
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import time\nfrom calc.ops import add\n"
        "def test_add():\n    assert add(2, 3) == 5\n"
        "def test_hang():\n    time.sleep(30)\n"
    )
    task = dataclasses.replace(fix_add, verifier_timeout=3)
    with Workspace.for_task(task) as ws:
        whole = verify(task, ws)
        stopped = verify(task, ws, first_failure=True)
    assert "timed out" in whole.infrastructure_error
    assert not stopped.accepted and stopped.infrastructure_error is None
    assert stopped.output.startswith("[verifier] 1 of 1 verifier tests did not pass: ")
    assert "test_add (failed)" in stopped.output.splitlines()[0]


def test_a_verdict_only_run_gives_the_whole_runs_verdict(fix_add):
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "conftest.py").write_text(
            "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
        )
        assert not verify(fix_add, ws, first_failure=True).accepted
        (ws.root / "conftest.py").unlink()
        assert not verify(fix_add, ws, first_failure=True).accepted
        ws.apply(solution_files(fix_add), fix_add.solution_delete)
        assert verify(fix_add, ws, first_failure=True).accepted


def test_a_verdict_only_run_is_answered_by_the_same_run_made_whole(fix_add, monkeypatch):
    """Mining's last repeat makes the whole run on the parent; the check's verdict on the untouched
    workspace, which would stop at its first failure, is that run's, with no run of its own."""
    monkeypatch.setattr(pytest_process, "_MEMO", type(pytest_process._MEMO)())  # no other test's runs
    with Workspace.for_task(fix_add) as ws:
        whole = hidden_run(fix_add, ws)
        made = test_time.runs
        stopped = verify(fix_add, ws, first_failure=True)
        assert test_time.runs == made and not stopped.accepted
        assert stopped.output.splitlines()[1:] == whole.output.splitlines()[-len(stopped.output.splitlines()) + 1 :]
        ws.apply(solution_files(fix_add), fix_add.solution_delete)
        assert verify(fix_add, ws, first_failure=True).accepted and test_time.runs == made + 1


def test_a_verifier_without_tests_is_an_infrastructure_error(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text("x = 1\n")
    with Workspace.for_task(fix_add) as ws:
        verdict = verify(fix_add, ws)
    assert not verdict.accepted and verdict.infrastructure_error == "the verifier collected no tests"


def test_a_planted_conftest_cannot_make_the_verifier_pass(fix_add):
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "conftest.py").write_text(
            "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
        )
        assert not verify(fix_add, ws).accepted


@pytest.mark.parametrize("where", ["cache", "sourceless"])
def test_planted_bytecode_cannot_make_the_verifier_pass(fix_add, where):
    """The solution compiled behind the untouched source: Python would run it, and no diff would show it."""
    with Workspace.for_task(fix_add) as ws:
        source = ws.root / "calc" / "ops.py"
        code = compile(solution_files(fix_add)["calc/ops.py"], str(source), "exec")
        if where == "cache":
            stat = source.stat()
            pyc = Path(importlib.util.cache_from_source(str(source)))
            data = importlib._bootstrap_external._code_to_timestamp_pyc(code, stat.st_mtime, stat.st_size)
        else:  # a lone .pyc is imported where no source is
            pyc = source.with_suffix(".pyc")
            source.unlink()
            data = importlib._bootstrap_external._code_to_timestamp_pyc(code, 0, 0)
        pyc.parent.mkdir(exist_ok=True)
        pyc.write_bytes(data)
        assert not ws.changes().paths or where == "sourceless"  # the diff does not show the bytecode
        verdict = verify(fix_add, ws)
        assert not verdict.accepted
        if where == "cache":
            assert not pyc.exists(), "a cache is removed: Python makes it again"
        else:
            assert "no source beside it" in verdict.output and "calc/ops.pyc" in verdict.output
            assert pyc.exists(), "a lone .pyc may be a served repository's own file: named, never deleted"


def test_the_project_suite_must_pass_after_the_hidden_tests(fix_add):
    task = dataclasses.replace(fix_add, verifier_suite=("tests",))
    with Workspace.for_task(task) as ws:
        ws.apply(solution_files(task), task.solution_delete)
        assert verify(task, ws).accepted
        (ws.root / "tests" / "test_broken.py").write_text("def test_broken():\n    assert False\n")
        assert verify(fix_add, ws).accepted, "the hidden tests alone still pass"
        verdict = verify(task, ws)
        stopped = verify(task, ws, first_failure=True)
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith("[verifier] the project's own suite (tests) did not pass: pytest exited 1")
    assert "test_broken" in verdict.output
    assert not stopped.accepted


def test_the_project_suite_never_reuses_a_run_the_agent_made(fix_add):
    """The agent's own run of the same tests on the same files passed (once: the test fails when run again);
    the verdict comes from a run of the verifier's own."""
    task = dataclasses.replace(fix_add, verifier_suite=("tests",))
    with Workspace.for_task(task) as ws:
        ws.apply(solution_files(task), task.solution_delete)
        (ws.root / "tests" / "test_once.py").write_text(
            "from pathlib import Path\n"
            "def test_first_run_only():\n"
            "    marker = Path('.venv', 'ran')\n"
            "    assert not marker.exists()\n"
            "    marker.parent.mkdir(exist_ok=True)\n"
            "    marker.write_text('')\n"
        )
        assert run_pytest(ws.root, ["tests"], task.verifier_timeout).passed
        verdict = verify(task, ws)
    assert not verdict.accepted and "the project's own suite (tests) did not pass" in verdict.output


def test_a_hanging_project_suite_is_an_infrastructure_error(fix_add):
    task = dataclasses.replace(fix_add, verifier_suite=("tests",), verifier_timeout=3)
    with Workspace.for_task(task) as ws:
        ws.apply(solution_files(task), task.solution_delete)
        (ws.root / "tests" / "test_hang.py").write_text("import time\ndef test_hang():\n    time.sleep(30)\n")
        verdict = verify(task, ws)
    assert not verdict.accepted and verdict.infrastructure_error == "the project's suite (tests) timed out after 3s"


def test_run_result_records_the_run(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["micro"], "none", RunSettings(agent=ReferenceAgent))
    assert result.success and result.outcome == "passed"
    assert result.modified == ["calc/ops.py"] and result.steps == 5 and result.tokens > 0
    assert result.transcript_length == len(result.transcript) == 13
    assert type(result).from_dict(result.to_dict()) == result


def test_missing_fixture_is_reported_as_error_not_failure(fix_add):
    import shutil

    shutil.rmtree(fix_add.fixture)
    result = run_task(fix_add, FIXED_POLICIES["micro"], "none", RunSettings(agent=ReferenceAgent))
    assert result.outcome == "error" and "fixture folder" in result.error


def test_task_check_names_a_task_whose_verifier_passes_untouched(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text("def test_nothing():\n    pass\n")
    check = check_task_file(fix_add.path, MacroRegistry.load())
    assert not check.ok and "accepts the untouched workspace" in check.problems[0]


def test_task_check_names_a_bad_reference_macro_call(fix_add):
    fix_add.path.write_text(fix_add.path.read_text().replace('old: "SCALE = 2"', "old: 2"))
    check = check_task_file(fix_add.path, MacroRegistry.load())
    assert check.problems == ("macro.args.old: 2 is not of type 'string'",)


CANARY = "_granularity_verifier/test_canary.py::test_canary"
TEST = "_granularity_verifier/test_v.py::test_v"


def record(canary_outcome: str | None) -> dict:
    """A verifier run's record: one test that passed, and the canary with this outcome (None: never ran)."""
    canaries = {} if canary_outcome is None else {CANARY: canary_outcome}
    outcomes = {TEST: "passed", **canaries}
    return {
        "exitstatus": 0,
        "collected": [CANARY, TEST],
        "deselected": 0,
        "errors": [],
        "outcomes": outcomes,
        "canaries": canaries,
        "internal_error": None,
    }


def test_a_run_that_stopped_with_no_failure_is_rejected_for_its_canary():
    """Told to stop at a failure, a run that stopped with none (workspace code ended the session) still
    needs its canary to have failed."""
    verdict = judge(PytestRun(0, "", False, record(None)), CANARY, first_failure=True)
    assert not verdict.accepted
    assert verdict.output.startswith("[verifier] the canary test that must fail ended not run")


def test_a_passing_record_from_a_run_that_was_killed_is_rejected():
    """A warm server's child can write its record after the server died under it: the exit code decides."""
    results = record("failed")
    assert judge(PytestRun(0, "", False, results), CANARY).accepted
    verdict = judge(PytestRun(-9, "", False, results), CANARY)
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith("[verifier] pytest exited -9 (its own status 0)")
