"""One run, start to end: task, workspace, agent and executor, verifier, result.

This is the one place that wires the chain together; every module it calls knows only its own
link. The workspace is removed when the run ends, whatever happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .agents import AgentFactory
from .executor import STOP_STEP_LIMIT, execute_micro
from .result import ERROR, FAILED, PASSED, RunResult
from .tasks import Task
from .tools import DEFAULT_TEST_TIMEOUT, ToolContext
from .verify import verify
from .workspace import Workspace, WorkspaceError


@dataclass(frozen=True)
class RunSettings:
    agent: AgentFactory
    max_steps: int | None = None
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    workspace_parent: Path | None = None


def run_task(task: Task, policy: str, fault: str, settings: RunSettings) -> RunResult:
    try:
        workspace = Workspace.for_task(task, settings.workspace_parent)
    except WorkspaceError as exc:
        return _infrastructure_error(task, policy, fault, str(exc))
    with workspace:
        agent = settings.agent(task, workspace.initial)
        ctx = ToolContext(workspace, task.tests, settings.test_timeout)
        execution = execute_micro(task, agent, ctx, settings.max_steps or task.max_steps)
        changes = workspace.changes()
        if execution.stop_reason == STOP_STEP_LIMIT:
            outcome, output, error = FAILED, f"stopped at the step limit ({execution.steps} steps)", None
        else:
            verdict = verify(task, workspace)
            outcome = ERROR if verdict.infrastructure_error else PASSED if verdict.accepted else FAILED
            output, error = verdict.output, verdict.infrastructure_error
    transcript = execution.transcript
    return RunResult(
        task=task.id,
        family=task.family,
        policy=policy,
        fault=fault,
        outcome=outcome,
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
        transitions=list(execution.transitions),
        verifier_output=output,
        error=error,
        transcript=transcript.to_list(),
    )


def _infrastructure_error(task: Task, policy: str, fault: str, message: str) -> RunResult:
    return RunResult(
        task=task.id, family=task.family, policy=policy, fault=fault, outcome=ERROR, steps=0, tokens=0,
        prompt_tokens=0, completion_tokens=0, tool_calls=0, macro_calls=0, stop_reason="infrastructure",
        error=message,
    )
