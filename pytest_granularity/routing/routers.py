"""Routers: the hand-written heuristic rules, and the learned trees walked from ``router.json``.

Routing sees only the pre-execution features (``features.py``: ten structural ones and two of
macro applicability from the registry); the recovery router sees
only what the executor observes at a failure. The learned trees are plain JSON that this module
walks without scikit-learn, giving exactly ``predict()``'s answers: scikit-learn compares
``float32(x) <= threshold``, and so does the walker.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import GranularityError, InputError
from ..core.failures import FAILURE_CLASSES
from ..core.modes import Mode, PolicyName
from ..core.schemas import DefinitionError, read_json
from ..core.tasks import Task
from ..core.workspace import Workspace, tree_digest
from ..macros import MacroRegistry
from ..run.policies import FIXED_POLICIES, FailureEvent, Policy, always
from .features import Features, compute
from .router_check import check_router

RECOVERY_FEATURES = (*FAILURE_CLASSES, "side_effects", "validation_failed", "changed_paths")
DEGRADE, STOP = "degrade", "stop"


class RouterError(GranularityError, ValueError):
    """A router file that cannot be used."""


def features_of(task: Task, workspace: Workspace, macros: MacroRegistry) -> Features:
    """A task's features; the macros' applicability checks may not read its task file, verifier or solution."""
    return compute(task.prompt, workspace.initial, macros, task.hidden_paths)


def heuristic_mode(f: Features) -> str:
    """The C-Heuristic rules, in order:

    1. a refactor (move, rename, extract) that names Python files → ``macro`` (``move_module``);
    2. a task that names at most one file and few entities → ``macro`` (a targeted
       ``replace_and_verify`` or ``summarize_module``);
    3. everything else → ``micro``.
    """
    if f.is_refactor_task and f.python_files >= 1:
        return Mode.MACRO
    if f.file_paths <= 1 and f.entities <= 8:
        return Mode.MACRO
    return Mode.MICRO


def recovery_vector(event: FailureEvent) -> tuple[float, ...]:
    onehot = tuple(float(event.failure_class == c) for c in FAILURE_CLASSES)
    return (*onehot, float(event.side_effects), float(event.validation_failed), float(event.changed_paths))


def _float32(value: float) -> float:
    (single,) = struct.unpack("f", struct.pack("f", value))
    return float(single)


@dataclass(frozen=True)
class Tree:
    """A fitted decision tree as plain arrays (scikit-learn's ``tree_`` layout)."""

    features: tuple[str, ...]
    classes: tuple[str, ...]
    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    children_left: tuple[int, ...]
    children_right: tuple[int, ...]
    value: tuple[tuple[float, ...], ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tree:
        return cls(
            features=tuple(data["features"]),
            classes=tuple(data["classes"]),
            feature=tuple(data["feature"]),
            threshold=tuple(data["threshold"]),
            children_left=tuple(data["children_left"]),
            children_right=tuple(data["children_right"]),
            value=tuple(tuple(v) for v in data["value"]),
        )

    def walk(self, x: Sequence[float]) -> tuple[str, list[str]]:
        """The predicted class and the path of tests that led to it."""
        node, path = 0, []
        while self.children_left[node] != -1:
            name, threshold = self.features[self.feature[node]], self.threshold[node]
            value = x[self.feature[node]]
            if _float32(value) <= threshold:
                path.append(f"{name} = {value:g} <= {threshold:g}")
                node = self.children_left[node]
            else:
                path.append(f"{name} = {value:g} > {threshold:g}")
                node = self.children_right[node]
        counts = self.value[node]
        label = self.classes[max(range(len(counts)), key=lambda i: (counts[i], -i))]
        path.append(f"leaf {node}: {label} ({', '.join(f'{c}={v:g}' for c, v in zip(self.classes, counts))})")
        return label, path

    def predict(self, x: Sequence[float]) -> str:
        return self.walk(x)[0]


@dataclass(frozen=True)
class Router:
    mode: Tree
    recovery: Tree

    @classmethod
    def load(cls, path: Path) -> Router:
        """Read and fully validate ``path`` (see ``router_check``): a bad file is one :class:`RouterError`."""
        try:
            data = read_json(Path(path))
        except DefinitionError as exc:
            raise RouterError(f"{path}: cannot read the router: {exc.message.removeprefix('cannot read: ')}") from None
        try:
            check_router(
                Path(path),
                data,
                {
                    "mode_tree": (Features.names(), (Mode.MACRO, Mode.MICRO)),
                    "recovery_tree": (RECOVERY_FEATURES, (DEGRADE, STOP)),
                },
            )
        except DefinitionError as exc:
            raise RouterError(str(exc)) from None
        return cls(Tree.from_dict(data["mode_tree"]), Tree.from_dict(data["recovery_tree"]))

    def mode_of(self, f: Features) -> str:
        return self.mode.predict(f.vector())

    def recover(self, event: FailureEvent) -> bool:
        return self.recovery.predict(recovery_vector(event)) == DEGRADE


def heuristic_policy() -> Policy:
    return Policy(PolicyName.HEURISTIC, lambda task, ws: heuristic_mode(compute(task.prompt, ws.initial)), always)


def learned_policy(router: Router, macros: MacroRegistry) -> Policy:
    features = FeatureMemo(macros)
    return Policy(PolicyName.LEARNED, lambda task, ws: router.mode_of(features(task, ws)), router.recover)


class FeatureMemo:
    """``features_of`` once per task and initial workspace: every run of a task (each fault, each
    epoch) routes on the same pre-execution evidence, and the applicability checks behind it run
    macro code in a process of their own, a tenth of a second a task."""

    def __init__(self, macros: MacroRegistry) -> None:
        self.macros = macros
        self.known: dict[tuple[Path, str], Features] = {}

    def __call__(self, task: Task, workspace: Workspace) -> Features:
        key = (task.path, tree_digest(workspace.initial))
        if key not in self.known:
            self.known[key] = features_of(task, workspace, self.macros)
        return self.known[key]


def policy_named(name: str, router_path: Path, macros: MacroRegistry) -> Policy:
    """The policy ``name`` selects (one of ``PolicyName``); ``learned`` reads ``router_path``."""
    if name in FIXED_POLICIES:
        return FIXED_POLICIES[name]
    if name == PolicyName.HEURISTIC:
        return heuristic_policy()
    if name == PolicyName.LEARNED:
        return learned_policy(Router.load(router_path), macros)
    raise InputError(f"unknown policy {name!r}; choose from {', '.join(PolicyName)}")
