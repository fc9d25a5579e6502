"""Policies: how a run picks its initial mode from pre-execution evidence, and whether it recovers.

The fixed policies (docs/architecture.md): ``micro`` (micro tools only), ``macro`` (macro skills only,
stop at the first failure) and ``hybrid`` (macros first; after an observed failure, degrade to
micro tools in the same workspace). A recovery override (``never`` / ``always``) turns a
macro-first policy into the paper's no-recovery or always-degrade baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from ..core.modes import Mode, PolicyName
from ..core.tasks import Task

if TYPE_CHECKING:  # the plugin's options import this module in every pytest run: keep it light
    from ..core.workspace import Workspace


@dataclass(frozen=True)
class FailureEvent:
    """What the executor can see when a macro fails: the evidence a recovery decision may use."""

    failure_class: str
    side_effects: bool
    validation_failed: bool
    changed_paths: int


ModeChooser: TypeAlias = "Callable[[Task, Workspace], str]"
"""Picks a run's initial mode (``micro`` or ``macro``) from the task and its workspace before any call."""
Recovery = Callable[[FailureEvent], bool]
"""Whether a run degrades to micro tools after a macro failure."""


@dataclass(frozen=True)
class Policy:
    """How a run picks its mode and whether it recovers: the two decisions the benchmark compares, kept apart so
    a plugin can pair any router with any recovery (``pytest_granularity_policies``).

    ``route`` sees the task and its untouched workspace, before any call; ``recover`` sees only what the executor
    observed at a macro failure. ``uses_macros`` False (``micro``) means no faulted runs are made for it: no
    fault can reach a run that never calls a macro.
    """

    name: str
    route: ModeChooser
    recover: Recovery
    uses_macros: bool = True
    hands_over: bool = True
    """Whether the agent may end a macro phase by finishing with the micro tools (``use_micro_tools``) once a macro
    that makes pieces of a change has succeeded: partial use. False for ``macro``, which runs macro skills only."""


def _always_micro(task: Task, workspace: Workspace) -> str:
    return Mode.MICRO


def _always_macro(task: Task, workspace: Workspace) -> str:
    return Mode.MACRO


def never(event: FailureEvent) -> bool:
    return False


def always(event: FailureEvent) -> bool:
    return True


RECOVERY_OVERRIDES: dict[str, Recovery] = {"never": never, "always": always}

FIXED_POLICIES: dict[str, Policy] = {
    PolicyName.MICRO: Policy(PolicyName.MICRO, _always_micro, never, uses_macros=False),
    PolicyName.MACRO: Policy(PolicyName.MACRO, _always_macro, never, hands_over=False),
    PolicyName.HYBRID: Policy(PolicyName.HYBRID, _always_macro, always),
}
