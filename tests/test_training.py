from __future__ import annotations

import json

import pytest
from conftest import REPO

from pytest_granularity.cli import main
from pytest_granularity.core.environment import current_environment
from pytest_granularity.core.result import RunResult
from pytest_granularity.routing.features import Features

pytest.importorskip("sklearn")
training = pytest.importorskip("pytest_granularity.routing.training")

ROUTER = REPO / "router.json"
RUNS = REPO / ".granularity" / "training-runs.jsonl"


def run(task, policy, fault="none", success=True, tokens=100, failure=None, changed=(), degraded=False):
    return RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome="passed" if success else "failed",
        mode="",
        steps=1,
        tokens=tokens,
        prompt_tokens=tokens,
        completion_tokens=0,
        macro_calls=0,
        modified=list(changed),
        failure_class=failure,
        degraded=degraded,
    )


RUNS_BY_HAND = training.index_runs(
    [
        run("fits", "micro", tokens=900),
        run("fits", "hybrid", tokens=100),
        run("fits", "macro", tokens=100),
        run("none", "micro", tokens=900),
        run("none", "hybrid", success=False, tokens=50),
        run("none", "macro", success=False, tokens=50),
        run("late", "macro", "late", failure="executor_exception", changed=["a.py"], tokens=90),
        run("late", "hybrid", "late", failure="executor_exception", changed=["a.py"], degraded=True, tokens=400),
        run("early", "macro", "early", success=False, failure="executor_exception", tokens=90),
        run("early", "hybrid", "early", failure="executor_exception", degraded=True, tokens=600),
    ]
)


def test_when_both_routes_fail_the_label_is_the_one_that_wasted_less():
    both_fail = training.index_runs(
        [
            run("cheap-macro", "micro", success=False, tokens=6000),
            run("cheap-macro", "hybrid", success=False, tokens=1500),
            run("cheap-micro", "micro", success=False, tokens=800),
            run("cheap-micro", "hybrid", success=False, tokens=1500),
        ]
    )
    assert training.mode_labels(both_fail, ["cheap-macro", "cheap-micro"]) == {
        "cheap-macro": "macro",
        "cheap-micro": "micro",
    }


def test_a_failure_is_labelled_stop_when_degrading_failed_too_and_cost_more():
    futile = training.index_runs(
        [
            run("t", "macro", "late", success=False, failure="validation_failure", changed=["a.py"], tokens=700),
            run("t", "hybrid", "late", success=False, failure="validation_failure", degraded=True, tokens=6000),
        ]
    )
    assert [s[3] for s in training.recovery_samples(futile, ["t"])] == ["stop"]


def test_labels_by_hand():
    assert training.mode_labels(RUNS_BY_HAND, ["fits", "none"]) == {"fits": "macro", "none": "micro"}
    samples = training.recovery_samples(RUNS_BY_HAND, ["late", "early"])
    assert [(task, fault, label) for task, fault, _, label in samples] == [
        ("early", "early", "degrade"),
        ("late", "late", "stop"),
    ]
    assert samples[1][2][-3:] == (1.0, 0.0, 1.0)


def test_simulated_runs_are_the_fixed_policies_runs():
    assert training.simulate(RUNS_BY_HAND, "fits", "none", "micro", lambda e: True).tokens == 900
    assert training.simulate(RUNS_BY_HAND, "late", "late", "macro", lambda e: False).tokens == 90
    assert training.simulate(RUNS_BY_HAND, "late", "late", "macro", lambda e: True).tokens == 400
    assert training.simulate(RUNS_BY_HAND, "early", "early", "macro", lambda e: True).success


def test_training_twice_gives_the_same_bytes():
    infos = {
        "fits": training.TaskInfo("simple", Features(1, 1, 0, 3, 10, 3, 1, 0, 0, 0)),
        "none": training.TaskInfo("multi_file", Features(4, 2, 2, 12, 90, 6, 4, 3, 1, 0)),
        "late": training.TaskInfo("recovery", Features(2, 2, 0, 5, 50, 5, 2, 1, 0, 1)),
        "early": training.TaskInfo("recovery", Features(2, 2, 0, 6, 40, 5, 2, 1, 0, 1)),
    }
    documents = []
    for _ in range(2):
        router = training.fit_router(RUNS_BY_HAND, infos, infos)
        evaluation = {"kfold": training.evaluate(RUNS_BY_HAND, infos, "kfold")}
        documents.append(training.router_document(router, RUNS_BY_HAND, infos, evaluation))
    assert documents[0] == documents[1]
    assert json.loads(documents[0])["recovery_tree"]["classes"] == ["degrade", "stop"]


def test_the_committed_router_reproduces_from_the_committed_runs(tmp_path):
    out = tmp_path / "router.json"
    assert main(["train", "--runs", str(RUNS), "--tasks", str(REPO / "benchmark_tasks"), "-o", str(out)]) == 0
    committed, fresh = json.loads(ROUTER.read_text()), json.loads(out.read_text())
    assert fresh["environment"] == current_environment()
    here = (fresh["environment"], fresh["training"]["library_versions"])
    if (committed["environment"], committed["training"]["library_versions"]) == here:
        assert out.read_text() == ROUTER.read_text()
    else:  # another Python, pytest, platform or scikit-learn: the trees and scores must still agree
        for document in (committed, fresh):
            document.pop("environment")
            document["training"].pop("library_versions")
        assert fresh == committed


def test_explain_shows_features_paths_and_decisions(capsys):
    assert (
        main(["explain", str(REPO / "benchmark_tasks" / "inventory-move-tables-to-text"), "--router", str(ROUTER)]) == 0
    )
    out = capsys.readouterr().out
    assert "is_refactor_task  1" in out and "=> start in" in out and "late fault (work written):" in out


def test_a_mode_split_that_does_not_generalise_is_not_kept():
    """Noise features, costly macro tasks: the inner cross-validation keeps every task macro-first."""
    runs, infos = [], {}
    for i in range(20):
        task, fits = f"t{i:02d}", i % 4 != 0
        runs += [
            run(task, "micro", tokens=50000 if fits else 20000),
            run(task, "hybrid", tokens=1000 if fits else 22000),
        ]
        infos[task] = training.TaskInfo(
            "simple", Features(i, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        )  # an id: splits fit, never generalise
    indexed = training.index_runs([*runs, run("t00", "macro", success=False, failure="precondition_mismatch")])
    labels = training.mode_labels(indexed, infos)
    assert training.route_costs(indexed, "t00") == {"micro": 20000, "macro": 22000}
    assert (
        training.choose_leaf_size(indexed, infos, sorted(labels), labels) > 1
    )  # leaf 1 memorises the ids and misroutes
    router = training.fit_router(indexed, infos, infos)
    assert {router.mode_of(info.features) for info in infos.values()} == {"macro"}
