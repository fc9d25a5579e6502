"""End-to-end runs of ``pytest --granularity=...`` through pytester."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import DATA


@pytest.fixture
def project(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    return pytester


def table(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(r"=+ granularity =+", line))
    return [line for line in lines[start + 1 :] if line.startswith(("policy", "micro", "macro", "hybrid"))]


def test_micro_run_passes_and_prints_the_table(project):
    result = project.runpytest("tasks", "--granularity=micro", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*task.yaml::fix-add[[]micro[]] PASSED*"])
    rows = table(result.stdout.str())
    assert rows[0].split()[:6] == ["policy", "fault", "runs", "success", "steps", "tokens"]
    assert rows[1].split()[:5] == ["micro", "none", "1", "1.000", "5.00"]


def test_a_rejected_run_shows_the_verifier_output(project):
    (project.path / "tasks/fix-add/verifier/test_verify_fix_add.py").write_text(
        "def test_impossible():\n    assert 1 == 2, 'impossible demand'\n"
    )
    result = project.runpytest("tasks", "--granularity=micro")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*verifier rejected the final workspace*", "*changed paths: calc/ops.py*", "*impossible demand*"])


def test_a_malformed_task_is_a_collection_error_naming_file_and_field(project):
    task = project.path / "tasks/fix-add/task.yaml"
    task.write_text(task.read_text().replace("family: simple", "family: nonsense"))
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*task.yaml: field 'family': 'nonsense' is not one of*"])


def test_unknown_policy_is_a_usage_error(project):
    result = project.runpytest("tasks", "--granularity=nano")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown policy nano*"])


def test_without_the_option_task_folders_are_not_collected(project):
    result = project.runpytest("tasks")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_records_travel_in_user_properties(project):
    result = project.runpytest("tasks", "--granularity=micro", "--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    xml = (project.path / "out.xml").read_text()
    assert 'property name="granularity_run"' in xml and "&quot;tokens&quot;" in xml


def test_xdist_gives_the_same_table(project):
    pytest.importorskip("xdist")
    serial = project.runpytest_subprocess("tasks", "--granularity=micro")
    parallel = project.runpytest_subprocess("tasks", "--granularity=micro", "-n", "2")
    parallel.assert_outcomes(passed=1)
    assert table(parallel.stdout.str()) == table(serial.stdout.str())
