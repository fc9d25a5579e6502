"""Mined macros measured on later work: tasks they were not mined from, solved in macro mode.

The caller is the no-model baseline (``FirstSuggestion``): it makes the first call a macro's derivation
suggests and finishes, so what it solves the harness and the macros solve alone. A call that passes the
macro's own validation and leaves a workspace the verifier rejects is **harmful**: the macro said it was
done and it was not; the count is what an evolving library must keep at zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from ..agents.first_suggestion import FirstSuggestion
from ..agents.reference import ReferenceAgent
from ..core.failures import Fault
from ..core.modes import PolicyName
from ..core.result import Outcome, RunResult
from ..core.tasks import Task
from ..gate.significance import wilson_interval
from ..macros import MacroRegistry
from ..macros.suggestions import LISTED
from ..process.sandbox import Sandbox
from ..run.policies import FIXED_POLICIES
from ..run.runner import RunSettings, run_task


@dataclass(frozen=True)
class Attempt:
    """One task in macro mode: solved, which macro succeeded (if one did), whether that was harmful, and the
    share of the task's reference change the run's macro call wrote (``coverage``)."""

    task: str
    solved: bool
    macro: str | None
    harmful: bool
    tokens: int
    coverage: float = 0.0


def attempt(task: Task, registry: MacroRegistry, sandbox: Sandbox) -> Attempt:
    settings = RunSettings(agent=FirstSuggestion, macros=registry, sandbox=sandbox, suggestions=LISTED)
    result = run_task(task, FIXED_POLICIES[PolicyName.MACRO], Fault.NONE, settings)
    succeeded = next((e.macro for e in result.macro_log if e.failure_class is None), None)
    solved = result.outcome == Outcome.PASSED
    share = result.macro_coverage or 0.0
    return Attempt(task.id, solved, succeeded, succeeded is not None and not solved, result.tokens, share)


def micro_run(task: Task, sandbox: Sandbox) -> RunResult:
    """The reference agent's micro run: what the same task costs without a macro."""
    return reference_run(task, PolicyName.MICRO, MacroRegistry.load(builtin=False), sandbox)


def reference_run(task: Task, policy: str, registry: MacroRegistry, sandbox: Sandbox) -> RunResult:
    """The reference agent's run under ``policy`` with ``registry``: in hybrid, it calls the mined macros for
    the pieces of the change they make and finishes with micro tools (partial use)."""
    settings = RunSettings(agent=ReferenceAgent, macros=registry, sandbox=sandbox)
    return run_task(task, FIXED_POLICIES[policy], Fault.NONE, settings)


def partial_use(hybrid: RunResult, micro: RunResult) -> dict[str, Any]:
    """A task's hybrid run with the mined macros beside its micro run: solved, steps, tokens, macro coverage."""
    return {
        "task": hybrid.task,
        "handed_over": any("--hand_over-->" in t for t in hybrid.transitions),
        "failure_class": hybrid.failure_class,
        "macro_coverage": hybrid.macro_coverage,
        **{
            f"{run.policy}_{field}": value
            for run in (hybrid, micro)
            for field, value in (("solved", run.success), ("steps", run.steps), ("tokens", run.tokens))
        },
    }


def tally(attempts: Iterable[Attempt]) -> dict[str, Any]:
    """Solved and harmful counts, the solve rate with its 95 % Wilson interval, the tasks a macro call
    wrote part of (``covered``), and every attempt."""
    done = list(attempts)
    solved = sum(a.solved for a in done)
    low, high = wilson_interval(solved, len(done))
    return {
        "tasks": len(done),
        "solved": solved,
        "harmful": sum(a.harmful for a in done),
        "covered": sum(a.coverage > 0 for a in done),
        "rate": round(solved / len(done), 3) if done else 0.0,
        "interval": [round(low, 3), round(high, 3)],
        "attempts": [asdict(a) for a in done],
    }
