"""Epochs end to end: ids, seeds, xdist, shards and merge, and the gate with a stochastic agent."""

from __future__ import annotations

import json
import shutil

import numpy  # noqa: F401  the gate imports it; pytester's in-process runs cannot import it twice
import pytest
from conftest import DATA, REPO
from test_plugin import second_task, table, without_latency

STOCHASTIC = """
from pytest_granularity.agents.stochastic import stochastic_agent

def pytest_granularity_agents(config):
    return {{"stochastic": stochastic_agent({probabilities!r})}}
"""


@pytest.fixture
def project(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    shutil.copy(REPO / "router.json", pytester.path / "router.json")
    second_task(pytester)
    return pytester


def test_epochs_are_items_with_their_own_seeds_the_same_under_xdist_and_shards(project):
    pytest.importorskip("xdist")
    args = ("tasks", "--granularity=micro", "--granularity-epochs=3", "--granularity-seed=10")
    serial = project.runpytest_subprocess(*args, "--granularity-report=serial.json", "--collect-only", "-q")
    serial.stdout.fnmatch_lines(["*fix-add[[]micro-e0[]]", "*fix-add[[]micro-e2[]]", "*fix-add-two[[]micro-e1[]]"])
    serial = project.runpytest_subprocess(*args, "--granularity-report=serial.json")
    serial.assert_outcomes(passed=6)
    records = [json.loads(line) for line in (project.path / "serial.jsonl").read_text().splitlines()]
    assert [(r["task"], r["epoch"], r["seed"]) for r in records[:3]] == [
        ("fix-add", 0, 10),
        ("fix-add", 1, 11),
        ("fix-add", 2, 12),
    ]
    serial.stdout.fnmatch_lines(["epochs (k = the epochs*", "micro   none   2      3       1.000 *2 / 0 / 0*"])
    parallel = project.runpytest_subprocess(*args, "-n", "2", "--granularity-report=parallel.json")
    assert table(parallel.stdout.str()) == table(serial.stdout.str())
    for index in (1, 2):
        shard = project.runpytest_subprocess(
            *args, f"--granularity-shard={index}/2", f"--granularity-report=shard{index}.json"
        )
        shard.assert_outcomes(passed=3, deselected=3)
    from pytest_granularity.cli import main

    assert (
        main(
            [
                "merge",
                str(project.path / "shard1.json"),
                str(project.path / "shard2.json"),
                "-o",
                str(project.path / "merged.json"),
            ]
        )
        == 0
    )
    for suffix in (".json", ".jsonl"):
        whole = without_latency((project.path / f"serial{suffix}").read_text())
        assert without_latency((project.path / f"parallel{suffix}").read_text()) == whole
        assert without_latency((project.path / f"merged{suffix}").read_text()) == whole


def test_the_gate_passes_noise_and_fails_a_task_that_broke(project):
    args = ("tasks", "--granularity=micro", "--granularity-agent=stochastic", "--granularity-epochs=5")
    project.makeconftest(STOCHASTIC.format(probabilities={"fix-add": 0.6, "fix-add-two": 1.0}))
    project.runpytest(*args, "--granularity-update-baseline").stdout.fnmatch_lines(["*baseline written:*(10 runs)*"])
    noisy = project.runpytest(
        *args, "--granularity-seed=100", "--granularity-baseline=.granularity/baseline.json", "-rx"
    )
    outcomes = noisy.parseoutcomes()
    assert outcomes["xfailed"] >= 1 and outcomes["passed"] + outcomes["xfailed"] == 10, (
        "failed epochs are judged by the gate"
    )
    noisy.stdout.fnmatch_lines(
        ["*gate passed*", "*epoch * rejected; the gate judges fix-add [[]micro, fault none[]] over all epochs*"]
    )
    assert noisy.ret == 0

    project.makeconftest(STOCHASTIC.format(probabilities={"fix-add": 0.6, "fix-add-two": 0.0}))
    broken = project.runpytest(*args, "--granularity-seed=100", "--granularity-baseline=.granularity/baseline.json")
    broken.stdout.fnmatch_lines(
        [
            "*REGRESSION regressed: fix-add-two [[]micro, fault none[]] success 5/5 -> 0/5 (1.000 -> 0.000, -1.000, 95% CI [[]-1.000, -0.386[]]), p=0.0040 <= *(Fisher exact; alpha 0.05 over * checks; tasks that could reach it: 1)",
            "*gate FAILED*",
        ]
    )
    assert broken.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--granularity-epochs=0", "*--granularity-epochs: must be at least 1*"),
        ("--granularity-alpha=1.5", "*--granularity-alpha: 1.5 is not between 0 and 1*"),
    ],
)
def test_bad_epochs_or_alpha_are_usage_errors(project, option, message):
    result = project.runpytest("tasks", "--granularity=micro", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
