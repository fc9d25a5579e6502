"""Fitting ``router.json`` with scikit-learn, and evaluating routers on tasks they never saw.

The only module that imports scikit-learn (the ``train`` extra). Labels come from runs of the
fixed policies: a task's mode label is the route that costs it fewer tokens (:func:`route_costs`, a
failed run paying for a micro run to redo the job), ties to ``micro`` — so when both fail, the route
that wasted less; a macro failure's recovery label is ``stop`` when stopping there (the ``macro``
policy's run) still succeeded, or when degrading (the ``hybrid`` run) failed too and cost more, else
``degrade``.

The mode tree is cost-sensitive: each task weighs what routing it wrongly would cost (the token
difference between its micro and macro-first runs), since sending a task a macro fits to micro
costs tens of thousands of tokens and sending a task no macro fits to macro-first costs a few
thousand. Its minimum leaf size is chosen by an inner 5-fold cross-validation on the training
tasks alone, among ``LEAF_SIZES`` and a single leaf (one mode for every task, when no split
generalises), by the tokens the inner held-out tasks would cost.

Held-out evaluation needs no new runs: the agent is deterministic, and a routed run is exactly
the fixed-policy run it routes to — ``micro`` → the micro run; ``macro`` → the macro run up to its
first failure, then the hybrid run if the recovery says degrade or the macro run if it says stop.
Same inputs, same bytes: training and evaluation are deterministic.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from ..core.environment import current_environment
from ..core.failures import FailureClass, Fault
from ..core.modes import FIXED, Mode, PolicyName
from ..core.result import RunResult
from ..core.tasks import find_task_files, load_task
from ..core.workspace import Workspace
from ..gate.held_out import HeldOut, Recovery, Route, RouteScore
from ..gate.metrics import bootstrap_ci, oracle_tokens
from ..macros import MacroRegistry
from ..run.policies import FailureEvent
from .features import Features
from .router_check import ROUTER_FORMAT
from .routers import DEGRADE, RECOVERY_FEATURES, STOP, Router, Tree, features_of, heuristic_mode, recovery_vector

MAX_DEPTH = 4
FOLDS = 5
LEAF_SIZES = (1, 3, 5)
Key = tuple[str, str, str]


@dataclass(frozen=True)
class TaskInfo:
    family: str
    features: Features


def index_runs(runs: Iterable[RunResult]) -> dict[Key, RunResult]:
    return {r.key: r for r in runs}


def mode_labels(runs: Mapping[Key, RunResult], tasks: Iterable[str]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for task in tasks:
        if (task, PolicyName.MICRO, Fault.NONE) not in runs or (task, PolicyName.HYBRID, Fault.NONE) not in runs:
            continue
        costs = route_costs(runs, task)
        labels[task] = Mode.MACRO if costs[Mode.MACRO] < costs[Mode.MICRO] else Mode.MICRO
    return labels


def uncovered(runs: Mapping[Key, RunResult], tasks: Iterable[str]) -> list[str]:
    """The tasks that lack a run of a needed policy: a fold of them would train on nothing."""
    return sorted(t for t in tasks if any((t, policy, Fault.NONE) not in runs for policy in FIXED))


def failure_event(run: RunResult) -> FailureEvent:
    """What the executor saw when the macro policy's run stopped at its failure."""
    changed = len(run.created) + len(run.modified) + len(run.deleted)
    return FailureEvent(
        run.failure_class or "", changed > 0, run.failure_class == FailureClass.VALIDATION_FAILURE, changed
    )


def recovery_samples(
    runs: Mapping[Key, RunResult], tasks: Iterable[str]
) -> list[tuple[str, str, tuple[float, ...], str]]:
    """(task, fault, features, label) for every failed macro-policy run of these tasks."""
    wanted = set(tasks)
    samples = []
    for (task, policy, fault), run in sorted(runs.items()):
        if policy == PolicyName.MACRO and task in wanted and run.failure_class:
            label = STOP if _stopping_pays(run, runs.get((task, PolicyName.HYBRID, fault))) else DEGRADE
            samples.append((task, fault, recovery_vector(failure_event(run)), label))
    return samples


def _stopping_pays(stopped: RunResult, degraded: RunResult | None) -> bool:
    """Whether stopping at the failure beat degrading: it succeeded, or both failed and it wasted less."""
    if stopped.success or degraded is None:
        return stopped.success
    return not degraded.success and stopped.tokens <= degraded.tokens


def fit_tree(
    rows: list[tuple[float, ...]],
    labels: list[str],
    names: tuple[str, ...],
    weights: list[float] | None = None,
    min_leaf: int = 1,
) -> Tree:
    from sklearn.tree import DecisionTreeClassifier

    classifier = DecisionTreeClassifier(
        max_depth=MAX_DEPTH, min_samples_leaf=max(1, min(min_leaf, len(rows))), random_state=0
    )
    classifier.fit(rows, labels, sample_weight=weights)
    tree = classifier.tree_
    return Tree(
        features=names,
        classes=tuple(str(c) for c in classifier.classes_),
        feature=tuple(int(f) for f in tree.feature),
        threshold=tuple(float(t) for t in tree.threshold),
        children_left=tuple(int(c) for c in tree.children_left),
        children_right=tuple(int(c) for c in tree.children_right),
        value=tuple(tuple(float(v) for v in node[0]) for node in tree.value),
    )


def route_costs(runs: Mapping[Key, RunResult], task: str) -> dict[str, float]:
    """The tokens a route costs on a task; a failed run also costs a micro run to redo the job."""
    micro, hybrid = runs[(task, PolicyName.MICRO, Fault.NONE)], runs[(task, PolicyName.HYBRID, Fault.NONE)]
    redo = float(micro.tokens)
    return {
        Mode.MICRO: micro.tokens + (0.0 if micro.success else redo),
        Mode.MACRO: hybrid.tokens + (0.0 if hybrid.success else redo),
    }


def _mode_tree(
    runs: Mapping[Key, RunResult],
    infos: Mapping[str, TaskInfo],
    labelled: list[str],
    labels: Mapping[str, str],
    min_leaf: int,
) -> Tree:
    weights = [abs(route_costs(runs, t)[Mode.MICRO] - route_costs(runs, t)[Mode.MACRO]) for t in labelled]
    return fit_tree(
        [infos[t].features.vector() for t in labelled],
        [labels[t] for t in labelled],
        Features.names(),
        weights,
        min_leaf,
    )


def choose_leaf_size(
    runs: Mapping[Key, RunResult], infos: Mapping[str, TaskInfo], labelled: list[str], labels: Mapping[str, str]
) -> int:
    """The minimum leaf size whose trees cost the fewest tokens on inner held-out folds of these
    tasks; ``len(labelled)`` (a single leaf) is a candidate too. Ties go to the smaller leaf."""
    costs: dict[int, float] = {}
    for leaf in (*LEAF_SIZES, len(labelled)):
        total = 0.0
        for i in range(FOLDS):
            inner = labelled[i::FOLDS]
            rest = [t for t in labelled if t not in inner]
            if not inner or not rest:
                continue
            tree = _mode_tree(runs, infos, rest, labels, leaf)
            total += sum(route_costs(runs, t)[tree.predict(infos[t].features.vector())] for t in inner)
        costs.setdefault(leaf, total)
    return min(costs, key=lambda leaf: (costs[leaf], leaf))


def fit_router(runs: Mapping[Key, RunResult], infos: Mapping[str, TaskInfo], tasks: Iterable[str]) -> Router:
    tasks = sorted(tasks)
    labels = mode_labels(runs, tasks)
    labelled = [t for t in tasks if t in labels]
    mode = _mode_tree(runs, infos, labelled, labels, choose_leaf_size(runs, infos, labelled, labels))
    samples = recovery_samples(runs, tasks)
    recovery = fit_tree([s[2] for s in samples], [s[3] for s in samples], RECOVERY_FEATURES)
    return Router(mode, recovery)


def macro_fits(runs: Mapping[Key, RunResult], task: str) -> bool:
    """Whether the task's macro call succeeds: the ``macro`` policy's run without a fault made a
    successful macro call that the verifier accepted. The fault tables are over these tasks only
    (a fault on a macro that refuses or fails anyway measures nothing new)."""
    run = runs.get((task, PolicyName.MACRO, Fault.NONE))
    return run is not None and run.success and run.macro_calls > 0 and run.failure_class is None


def simulate(
    runs: Mapping[Key, RunResult], task: str, fault: str, mode: str, recover: Callable[[FailureEvent], bool]
) -> RunResult | None:
    """The run a routed policy makes, assembled from the fixed policies' deterministic runs."""
    if mode == Mode.MICRO:
        return runs.get((task, PolicyName.MICRO, Fault.NONE))
    macro = runs.get((task, PolicyName.MACRO, fault))
    if macro is None or not macro.failure_class:
        return macro
    return runs.get((task, PolicyName.HYBRID, fault)) if recover(failure_event(macro)) else macro


def _tree_dict(tree: Tree) -> dict[str, Any]:
    return {
        "features": list(tree.features),
        "classes": list(tree.classes),
        "feature": list(tree.feature),
        "threshold": list(tree.threshold),
        "children_left": list(tree.children_left),
        "children_right": list(tree.children_right),
        "value": [list(v) for v in tree.value],
    }


def router_document(
    router: Router, runs: Mapping[Key, RunResult], infos: Mapping[str, TaskInfo], evaluation: Mapping[str, HeldOut]
) -> str:
    """``router.json``'s exact text: the trees, the training metadata and the environment it was trained in
    (``core.environment``), stable to the byte in one environment."""
    import sklearn

    tasks = sorted(infos)
    labels = mode_labels(runs, tasks)
    samples = recovery_samples(runs, tasks)
    digest = hashlib.sha256(
        "".join(json.dumps(_evidence(r), sort_keys=True) for _, r in sorted(runs.items())).encode()
    ).hexdigest()
    document = {
        "format": ROUTER_FORMAT,
        "version": 1,
        "environment": current_environment(),
        "mode_tree": _tree_dict(router.mode),
        "recovery_tree": _tree_dict(router.recovery),
        "training": {
            "tasks": tasks,
            "runs_sha256": digest,
            "max_depth": MAX_DEPTH,
            "mode_min_samples_leaf": choose_leaf_size(runs, infos, [t for t in tasks if t in labels], labels),
            "library_versions": {"python": platform.python_version(), "scikit-learn": sklearn.__version__},
            "scores": {
                "mode_training_agreement": _agreement(router.mode_of, labels, infos),
                "recovery_training_agreement": fmean(router.recovery.predict(s[2]) == s[3] for s in samples)
                if samples
                else None,
                "held_out": {scheme: result.to_dict() for scheme, result in evaluation.items()},
            },
        },
    }
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def _agreement(
    route: Callable[[Features], str], labels: Mapping[str, str], infos: Mapping[str, TaskInfo]
) -> float | None:
    return fmean(route(infos[t].features) == label for t, label in labels.items()) if labels else None


def folds(infos: Mapping[str, TaskInfo], scheme: str) -> list[list[str]]:
    """Held-out task sets: one per family (``family``), or ``FOLDS`` folds of the sorted tasks (``kfold``)."""
    tasks = sorted(infos)
    if scheme == "family":
        return [[t for t in tasks if infos[t].family == f] for f in sorted({i.family for i in infos.values()})]
    return [tasks[i::FOLDS] for i in range(FOLDS)]


def evaluate(runs: Mapping[Key, RunResult], infos: Mapping[str, TaskInfo], scheme: str) -> HeldOut:
    """Held-out numbers: every task is routed by a router trained without its fold."""
    routed: dict[Route, list[RunResult]] = {}
    agreement: dict[str, list[float]] = {PolicyName.HEURISTIC: [], PolicyName.LEARNED: []}
    all_tasks = sorted(infos)
    labels = mode_labels(runs, all_tasks)
    faults = sorted({k[2] for k in runs if k[2] != Fault.NONE})
    for held_out in folds(infos, scheme):
        router = fit_router(runs, infos, [t for t in all_tasks if t not in held_out])
        for task in held_out:
            learned_mode = router.mode_of(infos[task].features)
            heuristic = heuristic_mode(infos[task].features)
            if task in labels:
                agreement[PolicyName.LEARNED].append(float(learned_mode == labels[task]))
                agreement[PolicyName.HEURISTIC].append(float(heuristic == labels[task]))
            choices = {
                PolicyName.MICRO: (Mode.MICRO, lambda e: False),
                PolicyName.MACRO: (Mode.MACRO, lambda e: False),
                PolicyName.HYBRID: (Mode.MACRO, lambda e: True),
                PolicyName.HEURISTIC: (heuristic, lambda e: True),
                PolicyName.LEARNED: (learned_mode, router.recover),
            }
            for name, (mode, recover) in choices.items():
                _add(routed, Route(name, Fault.NONE), simulate(runs, task, Fault.NONE, mode, recover))
            for fault in faults:
                if (task, PolicyName.MACRO, fault) not in runs or not macro_fits(runs, task):
                    continue
                for choice, recover in (
                    (Recovery.NEVER, lambda e: False),
                    (Recovery.ALWAYS, lambda e: True),
                    (Recovery.LEARNED, router.recover),
                ):
                    _add(routed, Route(choice, fault), simulate(runs, task, fault, Mode.MACRO, recover))
    oracle = oracle_tokens(list(runs.values()))
    return HeldOut(
        scheme,
        {
            route: _score(route, group, oracle, agreement.get(route.policy) if route.fault == Fault.NONE else None)
            for route, group in sorted(routed.items(), key=lambda item: item[0].label)
        },
    )


def _add(routed: dict[Route, list[RunResult]], route: Route, run: RunResult | None) -> None:
    if run is not None:
        routed.setdefault(route, []).append(run)


def _score(
    route: Route, runs: list[RunResult], oracle: Mapping[tuple[str, str], int], agreement: list[float] | None
) -> RouteScore:
    success = [float(r.success) for r in runs]
    tokens = [float(r.tokens) for r in runs]
    matched = [(r.tokens, oracle[(r.task, route.fault)]) for r in runs if (r.task, route.fault) in oracle]
    failed = [r for r in runs if r.failure_class]
    return RouteScore(
        runs=len(runs),
        success_rate=fmean(success),
        success_ci=bootstrap_ci(success, route.label + "|s"),
        mean_tokens=fmean(tokens),
        tokens_ci=bootstrap_ci(tokens, route.label + "|t"),
        oracle_gap=fmean(t for t, _ in matched) / fmean(o for _, o in matched) if matched else None,
        transition_rate=fmean(float(r.degraded) for r in failed) if failed else None,
        agreement=fmean(agreement) if agreement else None,
    )


TRAINING_FIELDS = (
    "task",
    "family",
    "policy",
    "fault",
    "outcome",
    "tokens",
    "failure_class",
    "created",
    "modified",
    "deleted",
    "degraded",
)


def _evidence(run: RunResult) -> dict[str, Any]:
    """The fields training reads: the digest of the runs covers exactly these."""
    data = run.to_dict()
    return {name: data[name] for name in TRAINING_FIELDS}


SLIMMED = ("transcript", "verifier_output", "diff", "phases")
"""What ``write_runs`` leaves out, none of it read by training: what the agent and the verifier read
and wrote (with the diffs, the 464 runs take 1.9 MB instead of 0.4 MB) and the phases' timings."""


def _slim(run: RunResult) -> dict[str, Any]:
    data = run.to_dict()
    for name in SLIMMED:
        data.pop(name, None)
    return data


def write_runs(path: Path, runs: Iterable[RunResult]) -> None:
    """The training runs less ``SLIMMED``: what ``granularity train --runs`` needs to reproduce a router."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(_slim(r), sort_keys=True) + "\n" for r in sorted(runs, key=lambda r: r.key)))


def read_runs(path: Path) -> list[RunResult]:
    """Runs saved by ``write_runs`` (``.jsonl``) or a report's, validated line by line (see ``report``)."""
    from ..report.render import read_record_lines, read_records

    return read_record_lines(path) if path.suffix == ".jsonl" else read_records(path)


def task_infos(root: Path) -> dict[str, TaskInfo]:
    """Each task's family and pre-execution features under ``root``: what the trees split on and the folds group by."""
    infos = {}
    macros = MacroRegistry.load()
    for path in find_task_files([root]):
        task = load_task(path)
        with Workspace.for_task(task) as workspace:
            infos[task.id] = TaskInfo(task.family, features_of(task, workspace, macros))
    return infos


def fresh_runs(tasks: Path) -> list[RunResult]:
    """Run the fixed policies on ``tasks`` with every fault, in a pytest subprocess: the runs labels come from."""
    from ..report.render import read_records

    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "runs.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(tasks),
            "--granularity=micro,macro,hybrid",
            "--granularity-faults=all",
            f"--granularity-report={report}",
            "-q",
            "-p",
            "no:cacheprovider",
        ]
        if importlib.util.find_spec("xdist") is not None:
            command += ["-n", "auto", "--dist", "loadfile"]
        subprocess.run(command, check=False)
        return read_records(report)


def held_out_table(evaluation: Mapping[str, HeldOut]) -> str:
    """``evaluate``'s scores per held-out scheme, policy and fault as one table (``granularity train`` prints it)."""
    from ..report.render import render

    rows = []
    for scheme, result in evaluation.items():
        for route, score in result.scores.items():
            rows.append(
                (
                    scheme,
                    route.policy,
                    route.fault,
                    str(score.runs),
                    f"{score.success_rate:.3f}",
                    "[{:.3f}, {:.3f}]".format(*score.success_ci),
                    f"{score.mean_tokens:.1f}",
                    "[{:.1f}, {:.1f}]".format(*score.tokens_ci),
                    _figure(score.oracle_gap),
                    _figure(score.transition_rate),
                    _figure(score.agreement),
                )
            )
    return render(
        (
            "held out by",
            "policy",
            "fault",
            "runs",
            "success",
            "95% CI",
            "tokens",
            "95% CI",
            "oracle gap",
            "transition",
            "agreement",
        ),
        rows,
    )


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
