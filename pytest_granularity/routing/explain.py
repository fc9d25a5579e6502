"""Why a task starts in the mode it does, as text.

One wording, shared by ``granularity explain`` and the MCP server's ``start_task``, so a user
reads the same evidence (the pre-execution features, the heuristic's answer and the learned
trees' paths) wherever a routing decision is shown.
"""

from __future__ import annotations

from pathlib import Path

from ..core.failures import FailureClass
from ..core.tasks import load_task
from ..core.workspace import Workspace
from ..macros import MacroRegistry
from ..run.policies import FailureEvent
from .features import Features
from .routers import Router, features_of, heuristic_mode, recovery_vector

EXAMPLE_FAILURES = {
    "early fault (nothing written)": FailureEvent(FailureClass.EXECUTOR_EXCEPTION, False, False, 0),
    "late fault (work written)": FailureEvent(FailureClass.EXECUTOR_EXCEPTION, True, False, 3),
    "precondition mismatch, or no macro applied": FailureEvent(FailureClass.PRECONDITION_MISMATCH, False, False, 0),
    "validation failure": FailureEvent(FailureClass.VALIDATION_FAILURE, True, True, 3),
}
"""The failures a macro call can end in, walked through the recovery tree to show its decisions."""


def explain_routing(features: Features, router: Router | None = None, router_path: Path | None = None) -> str:
    """The features, the heuristic's mode and, with a router, the path through each of its trees."""
    lines = ["features (pre-execution evidence only):"]
    lines += [f"  {name:<17} {value:g}" for name, value in zip(features.names(), features.vector())]
    lines.append(f"heuristic: {heuristic_mode(features)}")
    if router is None:
        return "\n".join(lines)
    mode, steps = router.mode.walk(features.vector())
    lines.append(f"learned mode tree ({router_path}):")
    lines += [f"  {step}" for step in steps]
    lines.append(f"  => start in {mode} mode")
    lines.append("learned recovery tree, for the failures a macro call can end in:")
    for label, event in EXAMPLE_FAILURES.items():
        decision, steps = router.recovery.walk(recovery_vector(event))
        lines.append(f"  {label}: {decision}  [{'; '.join(steps[:-1])}]")
    return "\n".join(lines)


def explain_task(path: Path, router_path: Path) -> str:
    """``granularity explain``: a task's features (from a scratch copy of its workspace) and the routers' paths.

    Raises ``TaskError`` for a task that does not load and ``RouterError`` for a bad router file.
    """
    task = load_task(path)
    router = Router.load(router_path)
    with Workspace.for_task(task) as workspace:
        features = features_of(task, workspace, MacroRegistry.load())
    return f"task {task.id}\n{explain_routing(features, router, router_path)}"
