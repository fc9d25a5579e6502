"""The gate end to end: a baseline, a plugin that makes a macro worse, and what the build says."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA, REPO

WORSE_EARLY = """
def pytest_granularity_macro_early(macro, args, workspace):
    raise RuntimeError("this change broke " + macro)
"""


@pytest.fixture
def gated(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    shutil.copy(REPO / "router.json", pytester.path / "router.json")
    result = pytester.runpytest("tasks", "--granularity=macro,hybrid", "--granularity-update-baseline")
    result.stdout.fnmatch_lines(["*baseline written: *.granularity/baseline.json (6 runs)*"])
    return pytester


def test_an_unchanged_stack_passes_with_known_failures_as_xfail(gated):
    result = gated.runpytest(
        "tasks", "--granularity=macro,hybrid", "--granularity-baseline=.granularity/baseline.json", "-rxX"
    )
    result.assert_outcomes(passed=5, xfailed=1)
    result.stdout.fnmatch_lines(["*gate passed: nothing got worse*"])
    assert result.ret == 0


def test_a_macro_made_to_fail_regresses_the_build(gated):
    gated.makeconftest(WORSE_EARLY)
    result = gated.runpytest("tasks", "--granularity=macro,hybrid", "--granularity-baseline=.granularity/baseline.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*regressed: fix-add [[]macro, fault none[]] passed in the baseline and now fails (baseline: passed, 1 steps, * tokens; now: failed, 1 steps, * tokens)*",
            "*REGRESSION macro [[]fault none[]] over 1 runs: success rate dropped 1.000 -> 0.000*",
            "*gate FAILED: the session exits non-zero*",
        ]
    )


def test_a_macro_made_costlier_fails_on_tokens(gated):
    gated.makeconftest(WORSE_EARLY)
    result = gated.runpytest("tasks", "--granularity=hybrid", "--granularity-baseline=.granularity/baseline.json")
    result.stdout.fnmatch_lines(
        ["*regressed: fix-add [[]hybrid, fault none[]] tokens rose +*%, past the per-test tolerance of 10.0%*"]
    )
    result.stdout.fnmatch_lines(
        [
            "*REGRESSION hybrid [[]fault none[]] over 1 runs: mean tokens rose*past --granularity-max-token-increase=5.0%*"
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_thresholds_can_be_loosened(gated):
    gated.makeconftest(WORSE_EARLY)
    result = gated.runpytest(
        "tasks",
        "--granularity=hybrid",
        "--granularity-baseline=.granularity/baseline.json",
        "--granularity-test-token-tolerance=500%",
        "--granularity-max-token-increase=500%",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*gate passed*"])


def test_an_improvement_passes_and_shows_as_xpass(gated):
    baseline = gated.path / ".granularity" / "baseline.json"
    data = json.loads(baseline.read_text())
    data["runs"]["fix-add|hybrid|late"]["success"] = False
    data["runs"]["fix-add|hybrid|none"]["tokens"] *= 2
    baseline.write_text(json.dumps(data))
    result = gated.runpytest(
        "tasks", "--granularity=hybrid", "--granularity-baseline=.granularity/baseline.json", "-rX"
    )
    result.assert_outcomes(passed=2, xpassed=1)
    result.stdout.fnmatch_lines(
        [
            "*improvement fix-add [[]hybrid, fault late[]] failed in the baseline and now passes*",
            "*improvement hybrid [[]fault none[]]*mean tokens fell*",
        ]
    )
    assert result.ret == 0


def test_stale_entries_and_the_github_outputs(gated, monkeypatch):
    summary = gated.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    gated.makeconftest(WORSE_EARLY)
    result = gated.runpytest("tasks", "--granularity=macro", "--granularity-baseline=.granularity/baseline.json")
    result.stdout.fnmatch_lines(
        [
            "*3 stale baseline entries (not run now): fix-add|hybrid|early*",
            "::error title=granularity regression::regressed: fix-add*",
        ]
    )
    text = summary.read_text()
    assert (
        "### pytest-granularity gate against `.granularity/baseline.json`" in text
        and "**FAILED**" in text
        and "| Regressions |" in text
    )


def test_no_baseline_is_a_note_and_a_missing_one_is_a_usage_error(gated):
    result = gated.runpytest("tasks", "--granularity=macro")
    result.stdout.fnmatch_lines(["*no baseline given (--granularity-baseline): not gating*"])
    missing = gated.runpytest("tasks", "--granularity=macro", "--granularity-baseline=nope.json")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--granularity-baseline: *nope.json: cannot read the baseline*"])


def test_a_baseline_from_a_git_ref(gated):
    import subprocess

    git = ["git", "-C", str(gated.path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(gated.path)], check=True)
    subprocess.run([*git, "add", ".granularity/baseline.json"], check=True)
    subprocess.run([*git, "commit", "-qm", "baseline"], check=True)
    (gated.path / ".granularity" / "baseline.json").unlink()
    result = gated.runpytest(
        "tasks", "--granularity=macro", "--granularity-baseline=git:main:.granularity/baseline.json"
    )
    result.stdout.fnmatch_lines(["*granularity gate against git:main:.granularity/baseline.json*", "*gate passed*"])
