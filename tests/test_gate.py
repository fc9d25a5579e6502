from __future__ import annotations

import subprocess

import pytest

from pytest_granularity.core.result import RunResult
from pytest_granularity.gate.baseline import (
    Baseline,
    BaselineError,
    Entry,
    Thresholds,
    compare,
    load_baseline,
    parse_fraction,
    run_regression,
)


def run(task="t", policy="micro", fault="none", success=True, tokens=100, steps=5):
    return RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome="passed" if success else "failed",
        mode="micro",
        steps=steps,
        tokens=tokens,
        prompt_tokens=tokens,
        completion_tokens=0,
        macro_calls=0,
    )


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), ("0.05", 0.05), ("0", 0.0), ("12.5%", 0.125)])
def test_parse_fraction(text, value):
    assert parse_fraction(text, "--x") == pytest.approx(value)


@pytest.mark.parametrize("text", ["five", "-1%", ""])
def test_parse_fraction_refuses_nonsense(text):
    with pytest.raises(ValueError, match="--x"):
        parse_fraction(text, "--x")


def test_a_new_failure_is_a_regression_with_both_numbers():
    message = run_regression(Entry(True, 5, 100), run(success=False, tokens=90, steps=3), Thresholds())
    assert message.startswith("regressed: t [micro, fault none] passed in the baseline and now fails")
    assert "baseline: passed, 5 steps, 100 tokens; now: failed, 3 steps, 90 tokens" in message


def test_per_test_token_tolerance_at_the_boundary():
    entry = Entry(True, 5, 1000)
    assert run_regression(entry, run(tokens=1100), Thresholds(test_token_tolerance=0.10)) is None
    message = run_regression(entry, run(tokens=1101), Thresholds(test_token_tolerance=0.10))
    assert "tokens rose +10.1%, past the per-test tolerance of 10.0%" in message


def test_a_baseline_failure_is_never_a_regression():
    assert run_regression(Entry(False, 1, 10), run(success=False, tokens=999), Thresholds()) is None


def test_aggregate_thresholds_at_the_boundary():
    baseline = Baseline.from_results([run("a", tokens=100), run("b", tokens=100)])
    at_limit = compare(
        baseline,
        [run("a", tokens=105), run("b", tokens=105)],
        Thresholds(test_token_tolerance=1, max_token_increase=0.05),
    )
    assert not at_limit.failed
    past = compare(
        baseline,
        [run("a", tokens=106), run("b", tokens=105)],
        Thresholds(test_token_tolerance=1, max_token_increase=0.05),
    )
    assert (
        past.failed
        and "mean tokens rose 100.0 -> 105.5 (+5.5%), past --granularity-max-token-increase=5.0%" in past.regressions[0]
    )


def test_success_drop_threshold_and_improvements():
    baseline = Baseline.from_results([run("a"), run("b"), run("c", success=False)])
    report = compare(baseline, [run("a"), run("b", success=False), run("c")], Thresholds(max_success_drop=0.0))
    assert any("regressed: b" in r for r in report.regressions)
    assert any("c [micro, fault none] failed in the baseline and now passes" in i for i in report.improvements)
    assert not any("success rate dropped" in r for r in report.regressions), "0.667 -> 0.667 is not a drop"
    worse = [run("a"), run("b", success=False), run("c", success=False)]
    past = compare(baseline, worse, Thresholds(max_success_drop=0.3))
    assert any(
        "success rate dropped 0.667 -> 0.333 (-0.333), past --granularity-max-success-drop=0.3" in r
        for r in past.regressions
    )
    within = compare(baseline, worse, Thresholds(max_success_drop=0.34))
    assert not any("success rate dropped" in r for r in within.regressions)


def test_stale_entries_are_reported():
    baseline = Baseline.from_results([run("a"), run("gone")])
    assert compare(baseline, [run("a")], Thresholds()).stale == ["gone|micro|none"]


def test_baseline_round_trip(tmp_path):
    baseline = Baseline.from_results([run("a", tokens=7), run("b", policy="macro", success=False)])
    path = tmp_path / "baseline.json"
    path.write_text(baseline.to_json())
    loaded = load_baseline(str(path), tmp_path)
    assert loaded.runs == baseline.runs
    assert '"aggregates"' in path.read_text() and '"macro|none"' in path.read_text()


def test_baseline_errors_name_the_problem(tmp_path):
    with pytest.raises(BaselineError, match="cannot read the baseline"):
        load_baseline("missing.json", tmp_path)
    (tmp_path / "bad.json").write_text('{"schema_version": 7}')
    with pytest.raises(BaselineError, match="field 'schema_version'"):
        load_baseline("bad.json", tmp_path)
    (tmp_path / "junk.json").write_text("not json")
    with pytest.raises(BaselineError, match="not a pytest-granularity baseline"):
        load_baseline("junk.json", tmp_path)
    with pytest.raises(BaselineError, match="git:REF:PATH"):
        load_baseline("git:main", tmp_path)


def test_baseline_from_a_git_ref(tmp_path):
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    (tmp_path / ".granularity").mkdir()
    (tmp_path / ".granularity" / "baseline.json").write_text(Baseline.from_results([run("a", tokens=42)]).to_json())
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "baseline"], check=True)
    (tmp_path / ".granularity" / "baseline.json").write_text("changed in the work tree")
    loaded = load_baseline("git:main:.granularity/baseline.json", tmp_path)
    assert loaded.runs["a|micro|none"].tokens == 42 and loaded.source == "git:main:.granularity/baseline.json"
    with pytest.raises(BaselineError, match=r"no file 'nope\.json' at main"):
        load_baseline("git:main:nope.json", tmp_path)
    with pytest.raises(BaselineError, match="no commit 'nobranch'"):
        load_baseline("git:nobranch:.granularity/baseline.json", tmp_path)
