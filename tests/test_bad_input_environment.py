"""The environment a baseline or router file records: checked when read, and named when runs differ.

The field is optional (files written before it existed stay valid); when it is there it is an
object of strings, else one error naming the file and the field. When the gate finds runs that
differ from the baseline and the environments differ, or the baseline records none, it says so
in one line; when nothing differs, or the environment is the same, it says nothing.
"""

from __future__ import annotations

import json

import pytest
from bad_input_kit import assert_error
from conftest import REPO
from test_gate import run

from pytest_granularity.core.environment import current_environment
from pytest_granularity.gate.baseline import Baseline, BaselineError, Entry, Thresholds, compare
from pytest_granularity.plugin.github_output import gate_markdown
from pytest_granularity.routing.routers import Router, RouterError

OLD = {"python": "3.11.7", "pytest": "9.0.3", "platform": "Linux-x86_64"}
NEW = {**OLD, "pytest": "9.2.0"}
RUNS = {"t|micro|none": {"success": True, "steps": 5, "tokens": 100}}


@pytest.mark.parametrize(
    ("environment", "field", "problem"),
    [
        ("pytest 9.0.3", "environment", "'pytest 9.0.3' is not of type 'object'"),
        ({"pytest": 9}, "environment.pytest", "9 is not of type 'string'"),
        ({"os": ["linux"]}, "environment.os", "['linux'] is not of type 'string'"),
    ],
)
def test_a_baselines_environment_that_is_not_an_object_of_strings_is_refused(environment, field, problem):
    text = json.dumps({"schema_version": 1, "runs": RUNS, "environment": environment})
    assert_error(lambda: Baseline.parse(text, "b.json"), BaselineError, f"b.json: field '{field}': {problem}")


@pytest.mark.parametrize(
    ("environment", "field", "problem"),
    [
        (None, "environment", "None is not of type 'object'"),
        ({"python": 3.11}, "environment.python", "3.11 is not of type 'string'"),
    ],
)
def test_a_routers_environment_that_is_not_an_object_of_strings_is_refused(tmp_path, environment, field, problem):
    path = tmp_path / "router.json"
    path.write_text(json.dumps({**json.loads((REPO / "router.json").read_text()), "environment": environment}))
    assert_error(lambda: Router.load(path), RouterError, f"{path}: field '{field}': {problem}")


def test_a_written_baseline_records_this_environment_and_reads_back():
    written = Baseline.from_results([run()]).to_json()
    assert json.loads(written)["environment"] == current_environment()
    assert Baseline.parse(written, "b.json").environment == current_environment()


def gate(recorded, now, tokens=101):
    baseline = Baseline({"t|micro|none": Entry(True, 5, 100)}, "b", recorded)
    return compare(baseline, [run(tokens=tokens)], Thresholds(), now)


def test_differences_under_another_pytest_are_named_as_possibly_the_environments():
    report = gate(OLD, NEW)
    assert not report.failed
    assert report.environment == (
        "the baseline was made with pytest 9.0.3, this run uses pytest 9.2.0: differences in tokens may be the environment's"
    )
    assert f"Note: {report.environment}." in gate_markdown(report, "b").splitlines()


def test_differences_against_a_baseline_that_records_no_environment_say_so():
    assert gate(None, NEW).environment == (
        "the baseline records no environment, this run uses python 3.11.7, pytest 9.2.0, platform Linux-x86_64: "
        "differences in tokens may be the environment's"
    )


@pytest.mark.parametrize(("recorded", "tokens"), [(NEW, 130), (OLD, 100)], ids=["same-environment", "no-difference"])
def test_no_environment_line_when_the_environment_or_the_runs_are_the_same(recorded, tokens):
    assert gate(recorded, NEW, tokens).environment is None
