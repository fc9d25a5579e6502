"""One run, start to end: task, workspace, policy and executor, verifier, result.

This is the one place that wires the chain together; every module it calls knows only its own
link. The workspace is removed when the run ends, whatever happened.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from .agents import AgentFactory
from .executor import STOP_STEP_LIMIT, Execution, Limits, execute
from .macros import MacroRegistry
from .macros.registry import DEFAULT_TOP_K
from .macros.runtime import FaultPoint, no_faults
from .policies import Policy
from .result import ERROR, FAILED, PASSED, RunResult
from .tasks import Task
from .tools import DEFAULT_TEST_TIMEOUT, ToolContext
from .verify import verify
from .workspace import Changes, Workspace, WorkspaceError

MAX_DIFF_CHARS = 50_000


@dataclass(frozen=True)
class RunSettings:
    agent: AgentFactory
    macros: MacroRegistry = field(default_factory=MacroRegistry.load)
    max_steps: int | None = None
    retrieval_k: int = DEFAULT_TOP_K
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    workspace_parent: Path | None = None
    seed: int = 0


def run_task(
    task: Task, policy: Policy, fault: str, settings: RunSettings, fault_point: FaultPoint = no_faults, epoch: int = 0
) -> RunResult:
    """Run once; epoch ``k`` of a repeated cell gets the seed ``settings.seed + k``."""
    seed = settings.seed + epoch
    try:
        workspace = Workspace.for_task(task, settings.workspace_parent)
    except WorkspaceError as exc:
        return RunResult(
            task=task.id, family=task.family, policy=policy.name, fault=fault, outcome=ERROR, mode="", steps=0,
            tokens=0, prompt_tokens=0, completion_tokens=0, tool_calls=0, macro_calls=0,
            stop_reason="infrastructure", error=str(exc), epoch=epoch, seed=seed,
        )
    with workspace:
        agent = settings.agent(task, workspace.initial, seed)
        ctx = ToolContext(workspace, task.tests, settings.test_timeout)
        limits = Limits(settings.max_steps or task.max_steps, settings.retrieval_k)
        execution = execute(task, policy, agent, ctx, settings.macros, limits, fault_point)
        changes = workspace.changes()
        diff = bounded(workspace.diff(), MAX_DIFF_CHARS)
        if execution.stop_reason == STOP_STEP_LIMIT:
            outcome, output, error = FAILED, f"stopped at the step limit ({execution.steps} steps)", None
        else:
            verdict = verify(task, workspace)
            outcome = ERROR if verdict.infrastructure_error else PASSED if verdict.accepted else FAILED
            output, error = verdict.output, verdict.infrastructure_error
    return dataclasses.replace(run_record(task, policy, fault, execution, changes, diff, outcome, output, error), epoch=epoch, seed=seed)


def bounded(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note of what was cut, so one huge rewrite cannot bloat a report."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... diff truncated: {len(text) - limit} more characters\n"


def run_record(
    task: Task, policy: Policy, fault: str, execution: Execution, changes: Changes, diff: str, outcome: str, output: str, error: str | None
) -> RunResult:
    """The record of a finished execution; also what the MCP server writes to its audit log for a served task."""
    transcript = execution.transcript
    return RunResult(
        task=task.id,
        family=task.family,
        policy=policy.name,
        fault=fault,
        outcome=outcome,
        mode=execution.mode,
        steps=execution.steps,
        tokens=transcript.tokens,
        prompt_tokens=transcript.prompt_tokens,
        completion_tokens=transcript.completion_tokens,
        tool_calls=execution.steps,
        macro_calls=execution.macro_calls,
        created=list(changes.created),
        modified=list(changes.modified),
        deleted=list(changes.deleted),
        stop_reason=execution.stop_reason,
        failure_class=execution.failure.failure_class if execution.failure else None,
        degraded=execution.degraded,
        transitions=list(execution.transitions),
        contract_violations=list(execution.violations),
        macro_log=list(execution.calls),
        verifier_output=output,
        diff=diff,
        error=error,
        transcript=transcript.to_list(),
    )
