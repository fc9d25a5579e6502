from __future__ import annotations

import json
import random
import struct

import pytest
from conftest import REPO

from pytest_granularity.routing.features import Features
from pytest_granularity.routing.routers import Router, RouterError, Tree, heuristic_mode, recovery_vector
from pytest_granularity.run.policies import FailureEvent


def features(**values):
    base = dict.fromkeys(Features.names(), 0)
    base.update(values)
    return Features(**base)


def test_heuristic_rules():
    assert heuristic_mode(features(is_refactor_task=1, python_files=2, file_paths=3, entities=20)) == "macro"
    assert heuristic_mode(features(file_paths=1, entities=5)) == "macro"
    assert heuristic_mode(features(file_paths=3, entities=5)) == "micro"
    assert heuristic_mode(features(file_paths=1, entities=12)) == "micro"


def test_recovery_vector_is_one_hot_plus_observations():
    vector = recovery_vector(FailureEvent("executor_exception", True, False, 3))
    assert vector == (0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 3.0)


def test_the_walker_gives_exactly_sklearns_answers():
    sklearn_tree = pytest.importorskip("sklearn.tree")
    from pytest_granularity.routing.training import fit_tree

    rng = random.Random(7)
    rows = [
        tuple(rng.choice([0.0, 1.0, 2.5, 3.1, 1e-7, 0.1, 0.2]) + rng.random() * (i % 3) for i in range(4))
        for _ in range(200)
    ]
    labels = ["a" if r[0] + r[1] > r[2] * 1.5 else "b" if r[3] > 1 else "c" for r in rows]
    tree = fit_tree(rows, labels, ("w", "x", "y", "z"))
    classifier = sklearn_tree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(rows, labels)
    probes = list(rows)
    for threshold in tree.threshold:
        if threshold != -2:
            above = struct.unpack("f", struct.pack("f", threshold))[0]
            step = struct.unpack("f", struct.pack("I", struct.unpack("I", struct.pack("f", above))[0] + 1))[0]
            probes += [(value,) * 4 for value in (threshold, above, step)]
    assert [tree.predict(p) for p in probes] == list(classifier.predict(probes))


def test_a_bad_router_file_is_a_clear_error(tmp_path):
    path = tmp_path / "router.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(RouterError, match="field 'format'"):
        Router.load(path)
    with pytest.raises(RouterError, match="cannot read"):
        Router.load(tmp_path / "missing.json")


def test_tree_walk_reports_its_path():
    tree = Tree(
        ("x",), ("macro", "micro"), (0, -2, -2), (1.5, -2.0, -2.0), (1, -1, -1), (2, -1, -1), ((0, 0), (3, 1), (0, 4))
    )
    label, path = tree.walk((1.0,))
    assert label == "macro" and path[0] == "x = 1 <= 1.5" and path[-1].startswith("leaf 1: macro")
    assert tree.predict((2.0,)) == "micro"


def test_the_learned_policy_computes_a_tasks_features_once_per_initial_tree(fix_add, monkeypatch):
    from pytest_granularity.core.workspace import Workspace
    from pytest_granularity.macros import MacroRegistry
    from pytest_granularity.routing import routers

    computed = []
    real = routers.features_of
    monkeypatch.setattr(routers, "features_of", lambda *args: computed.append(args[0].id) or real(*args))
    policy = routers.learned_policy(Router.load(REPO / "router.json"), MacroRegistry.load())
    modes = set()
    for _ in range(3):
        with Workspace.for_task(fix_add) as workspace:
            modes.add(policy.route(fix_add, workspace))
    assert computed == [fix_add.id] and len(modes) == 1
    with Workspace.for_task(fix_add) as workspace:
        (workspace.root / "extra.py").write_text("x = 1\n")
        workspace.initial = workspace.files()
        policy.route(fix_add, workspace)
    assert computed == [fix_add.id, fix_add.id], "another initial tree is other evidence"
