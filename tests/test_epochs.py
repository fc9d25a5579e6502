"""Metrics, report and plot over epochs; one epoch stays exactly as before."""

from __future__ import annotations

import json
import random
import zlib
from statistics import fmean, median

import pytest

from pytest_granularity.core.result import RunIdentity, RunResult, identity_in
from pytest_granularity.gate.metrics import (
    RESAMPLES,
    bootstrap_ci,
    cluster_bootstrap_ci,
    epoch_summaries,
    pass_at_k,
    pass_hat_k,
    summarize,
)
from pytest_granularity.report.render import render_report, write_report


def run(task, epoch, success, tokens, policy="hybrid", fault="none"):
    return RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome="passed" if success else "failed",
        mode="micro",
        steps=2,
        tokens=tokens,
        prompt_tokens=tokens,
        completion_tokens=0,
        macro_calls=0,
        epoch=epoch,
        seed=7 + epoch,
    )


# task a: 2 of 4, task b: 4 of 4, task c: 0 of 4
EPOCHS = [
    run(t, k, s, tokens)
    for t, outcomes, tokens in (("a", "1010", 100), ("b", "1111", 200), ("c", "0000", 50))
    for k, s in enumerate(c == "1" for c in outcomes)
]


def test_pass_at_k_and_pass_hat_k_by_hand():
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10) and pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)
    assert pass_at_k(4, 0, 4) == 0.0 and pass_hat_k(4, 4, 4) == 1.0 and pass_at_k(4, 1, 4) == 1.0


def test_epoch_summary_by_hand():
    (e,) = epoch_summaries(EPOCHS)
    assert (e.tasks, e.epochs, e.runs, e.always, e.never) == (3, 4, 12, 1, 1)
    assert e.success_rate == pytest.approx(6 / 12)
    assert e.task_success == {"a": 0.5, "b": 1.0, "c": 0.0}
    assert e.pass_at_k["1"] == pytest.approx(0.5) and e.pass_at_k["4"] == pytest.approx(2 / 3)
    assert e.pass_hat_k["2"] == pytest.approx((1 / 6 + 1 + 0) / 3) and e.pass_hat_k["4"] == pytest.approx(1 / 3)
    assert e.mean_tokens == pytest.approx(350 / 3) and e.tokens_within_sd == 0.0
    assert e.success_ci[0] < 0.5 < e.success_ci[1]


def test_cluster_bootstrap_of_single_runs_is_the_plain_bootstrap():
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    assert cluster_bootstrap_ci([[v] for v in values], "seed") == bootstrap_ci(values, "seed")


def _choices_bootstrap(values, seed, statistic=fmean):
    """The intervals as first published: ``random.choices``, one resample after another."""
    rng = random.Random(zlib.crc32(seed.encode()))
    estimates = sorted(statistic(rng.choices(values, k=len(values))) for _ in range(RESAMPLES))
    return (estimates[int(0.025 * RESAMPLES)], estimates[int(0.975 * RESAMPLES) - 1])


def _choices_cluster_bootstrap(clusters, seed):
    rng = random.Random(zlib.crc32(seed.encode()))
    totals = [(sum(c), len(c)) for c in clusters]
    estimates = []
    for _ in range(RESAMPLES):
        drawn = rng.choices(totals, k=len(totals))
        estimates.append(sum(t for t, _ in drawn) / sum(n for _, n in drawn))
    estimates.sort()
    return (estimates[int(0.025 * RESAMPLES)], estimates[int(0.975 * RESAMPLES) - 1])


@pytest.mark.parametrize("size", [2, 3, 17, 80, 561])
def test_intervals_are_those_random_choices_gave(size):
    """numpy draws the resamples now (for speed): every interval must be the one ``random.choices`` gave,
    to the last bit, for success flags, token counts and float differences alike."""
    source = random.Random(size)
    flags = [float(source.random() < 0.6) for _ in range(size)]
    tokens = [source.randrange(100, 90_000) for _ in range(size)]
    differences = [source.uniform(-1, 1) / 3 for _ in range(size)]
    for i, values in enumerate((flags, tokens, differences)):
        seed = f"micro|none|{size}|{i}"
        assert bootstrap_ci(values, seed) == _choices_bootstrap(values, seed)
        assert bootstrap_ci(values, seed, median) == _choices_bootstrap(values, seed, median)
    clusters = [[float(source.random() < 0.5) for _ in range(source.randrange(1, 5))] for _ in range(size)]
    assert cluster_bootstrap_ci(clusters, "c") == _choices_cluster_bootstrap(clusters, "c")
    assert cluster_bootstrap_ci([[t] for t in tokens], "t") == _choices_cluster_bootstrap([[t] for t in tokens], "t")


def test_intervals_resample_tasks_not_runs():
    """Twenty tasks that always or never succeed: 100 runs each, but only 20 independent facts."""
    runs = [run(f"t{i}", k, i % 2 == 0, 10) for i in range(20) for k in range(100)]
    (summary,) = summarize(runs)
    low, high = summary.success_ci
    assert high - low > 0.3, "a run-level bootstrap would claim about ±0.02"


def test_single_runs_have_no_epoch_section(tmp_path):
    single = [r for r in EPOCHS if r.epoch == 0]
    assert epoch_summaries(single) == []
    summary, _ = write_report(tmp_path / "one.json", single)
    assert "epochs" not in json.loads(summary.read_text()) and "epochs (" not in render_report(single)


def test_epochs_in_the_table_and_the_json(tmp_path):
    text = render_report(EPOCHS, verbose=True)
    assert "epochs (k = the epochs" in text and "1 / 1 / 1" in text
    assert "tasks over epochs:" in text and "a     hybrid  none   2/4" in text
    summary, records = write_report(tmp_path / "out.json", list(reversed(EPOCHS)))
    document = json.loads(summary.read_text())
    assert document["epochs"][0]["pass_at_k"]["4"] == pytest.approx(2 / 3)
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert [(r["task"], r["epoch"], r["seed"]) for r in lines[:2]] == [("a", 0, 7), ("a", 1, 8)]


@pytest.mark.parametrize(
    ("policy", "fault", "epoch"),
    [("hybrid", "none", 0), ("hybrid", "late", 0), ("hybrid", "none", 3), ("macro", "early", 12)],
)
def test_a_runs_identity_travels_with_its_epoch(policy, fault, epoch):
    """What a lost run is rebuilt from (no item label is parsed), among other user properties."""
    identity = RunIdentity("a", "simple", policy, fault, epoch)
    assert identity_in([("other", "x"), identity.to_property()]) == identity
    assert identity_in([("other", "x")]) is None


def test_plot_has_a_panel_per_fault_and_a_legend_per_policy(tmp_path):
    pytest.importorskip("matplotlib")
    from pytest_granularity.report.plot import figure, write_plot

    runs = EPOCHS + [run(r.task, r.epoch, r.success, r.tokens * 2, policy="micro") for r in EPOCHS]
    runs += [run(r.task, r.epoch, True, r.tokens, fault="late") for r in EPOCHS]
    drawing = figure(summarize(runs), epoch_summaries(runs))
    assert [a.get_title() for a in drawing.axes] == ["fault: none", "fault: late"]
    assert [t.get_text() for t in drawing.legends[0].get_texts()] == ["micro", "hybrid"]
    written = write_plot(tmp_path / "p.png", summarize(runs), epoch_summaries(runs))
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_html_page_names_every_epoch_apart():
    from pytest_granularity.report.html import failures_first, run_id

    ids = [run_id(r) for r in failures_first(list(reversed(EPOCHS)))]
    assert len(set(ids)) == len(EPOCHS)
    assert ids[:3] == ["a|hybrid|none|e1", "a|hybrid|none|e3", "c|hybrid|none"], "failures first, then task and epoch"
