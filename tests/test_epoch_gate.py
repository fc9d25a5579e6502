"""The gate on repeated runs: noise passes, a real drop fails with both numbers, interval and p-value."""

from __future__ import annotations

import json

from pytest_granularity.core.result import RunResult
from pytest_granularity.gate.baseline import Baseline, Thresholds, compare


def run(task, epoch, success=True, tokens=1000, policy="hybrid", fault="none"):
    return RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome="passed" if success else "failed",
        mode="micro",
        steps=3,
        tokens=tokens,
        prompt_tokens=tokens,
        completion_tokens=0,
        macro_calls=0,
        epoch=epoch,
        seed=epoch,
    )


def cells(pattern, tokens=1000, fault="none"):
    """``pattern``: per task a string of epochs, 1 = success, 0 = failure."""
    return [
        run(f"t{i:02}", k, c == "1", tokens if c == "1" else tokens // 10, fault=fault)
        for i, row in enumerate(pattern)
        for k, c in enumerate(row)
    ]


def test_baseline_keys_hold_every_epoch_and_stay_as_before_for_one():
    baseline = Baseline.from_results(cells(["110", "1"]))
    assert sorted(baseline.runs) == ["t00|hybrid|none", "t00|hybrid|none|e1", "t00|hybrid|none|e2", "t01|hybrid|none"]
    assert baseline.epochs_of("t00", "hybrid", "none") == 3 and baseline.epochs_of("t01", "hybrid", "none") == 1
    document = json.loads(baseline.to_json())
    assert document["aggregates"] == {"hybrid|none": {"runs": 4, "success_rate": 0.75, "mean_tokens": 775.0}}
    assert Baseline.parse(baseline.to_json(), "b").cells == baseline.cells


def test_a_deterministic_agent_over_epochs_passes_and_makes_no_checks():
    same = cells(["11111", "00000"] * 10)
    report = compare(Baseline.from_results(same), same, Thresholds())
    assert not report.failed and report.regressions == report.improvements == []


def test_noise_is_not_a_regression():
    before = cells(["11101", "11111", "10111", "11111", "01111"] * 16)
    after = cells(["11111", "11011", "11111", "11110", "11011"] * 16)
    report = compare(Baseline.from_results(before), after, Thresholds())
    assert not report.failed, report.regressions


def test_a_real_drop_fails_with_both_numbers_the_interval_and_the_p_value():
    before = cells(["11111", "11110", "11111", "11101"] * 20)
    after = cells(["10101", "01110", "11010", "01101"] * 20)
    report = compare(Baseline.from_results(before), after, Thresholds())
    assert report.failed
    line = next(r for r in report.regressions if "success rate dropped" in r)
    assert line.startswith(
        "hybrid [fault none] over 80 tasks (400 baseline runs, 400 now): success rate dropped 0.900 -> 0.600 (-0.300, 95% CI ["
    )
    assert "p=0.0002 <= 0.01667 (alpha 0.05 over 3 checks), past --granularity-max-success-drop=0" in line


def test_the_drop_must_also_pass_the_threshold():
    before = cells(["11111", "11110", "11111", "11101"] * 20)
    after = cells(["10101", "01110", "11010", "01101"] * 20)
    report = compare(Baseline.from_results(before), after, Thresholds(max_success_drop=0.35, max_token_increase=10))
    assert not report.failed, report.regressions


def test_one_task_that_always_fails_now_is_a_per_task_regression():
    before = cells(["11111"] * 20)
    after = cells(["00000"] + ["11111"] * 19)
    report = compare(Baseline.from_results(before), after, Thresholds())
    assert (
        "regressed: t00 [hybrid, fault none] success 5/5 -> 0/5 (1.000 -> 0.000, -1.000, 95% CI [-1.000, -0.386]), "
        "p=0.0040 <= 0.01667 (Fisher exact; alpha 0.05 over 3 checks; tasks that could reach it: 1)"
    ) in report.regressions


def test_three_epochs_cannot_convict_one_task():
    """3 of 3 → 0 of 3 has p = 1/20: honest, and the docs say to choose N = 5 or more."""
    report = compare(Baseline.from_results(cells(["111"] * 20)), cells(["000"] + ["111"] * 19), Thresholds())
    assert not report.failed


def test_a_token_rise_is_judged_by_significance_and_threshold():
    before = [run(f"t{i:02}", k, tokens=1000 + 37 * ((i * 5 + k) % 7)) for i in range(40) for k in range(3)]
    after = [run(r.task, r.epoch, tokens=int(r.tokens * 1.2)) for r in before]
    report = compare(Baseline.from_results(before), after, Thresholds())
    assert any("mean tokens rose" in line and "(+20.0%" in line and "p=" in line for line in report.regressions), (
        report.regressions
    )
    assert not compare(Baseline.from_results(before), after, Thresholds(max_token_increase=0.25)).failed


def test_unequal_epochs_and_a_single_epoch_baseline_are_compared_by_significance():
    before = cells(["1"] * 30)
    after = cells(["00000"] * 30)
    report = compare(Baseline.from_results(before), after, Thresholds())
    assert any(
        "success rate dropped 1.000 -> 0.000" in line and "(30 baseline runs, 150 now)" in line
        for line in report.regressions
    )
    assert report.stale == []


def test_one_epoch_on_both_sides_keeps_the_exact_gate():
    report = compare(Baseline.from_results(cells(["1", "1"])), cells(["1", "0"]), Thresholds())
    assert report.regressions[0].startswith("regressed: t01 [hybrid, fault none] passed in the baseline and now fails")
    assert "hybrid [fault none] over 2 runs: success rate dropped 1.000 -> 0.500" in report.regressions[-1]
