"""One run, start to end: task, workspace, policy and executor, verifier, result.

This is the one place that wires the chain together; every module it calls knows only its own
link. The workspace is removed when the run ends, whatever happened, and no exception from an
agent escapes: a run that could not even build its agent is an error result too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..agents import AgentFactory, setup_for
from ..core.changed_lines import as_records, changed_lines, share
from ..core.defaults import DEFAULT_TOP_K
from ..core.phases import PhaseClock
from ..core.result import Outcome, RunResult, StopReason, TokenSource
from ..core.tasks import Task
from ..core.tools import DEFAULT_TEST_TIMEOUT
from ..core.workspace import Workspace, WorkspaceError, solved_files
from ..macros import MacroRegistry
from ..macros.runtime import FaultPoint, no_faults
from ..macros.suggestions import OFF
from ..process.pytest_process import test_time
from ..process.sandbox import NO_SANDBOX, Sandbox
from ..process.tool_context import ToolContext
from ..verifier.verify import verify
from .executor import (
    AgentFailed,
    Execution,
    Limits,
    StepLimitReached,
    execute,
)
from .piece_calls import piece_calls
from .policies import Policy

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
    max_tokens: int | None = None
    token_source: TokenSource = TokenSource.PROVIDER
    """``provider``: count the provider's usage where the agent reports it; ``local``: always cl100k."""
    sandbox: Sandbox = NO_SANDBOX
    suggestions: str = OFF
    """How a macro phase offers the calls each macro suggests (``macros.suggestions.MODES``)."""


def run_task(
    task: Task, policy: Policy, fault: str, settings: RunSettings, fault_point: FaultPoint = no_faults, epoch: int = 0
) -> RunResult:
    """Run once; epoch ``k`` of a repeated cell gets the seed ``settings.seed + k``."""
    seed = settings.seed + epoch
    return dataclasses.replace(_run(task, policy, fault, settings, fault_point, seed), epoch=epoch, seed=seed)


def _run(
    task: Task, policy: Policy, fault: str, settings: RunSettings, fault_point: FaultPoint, seed: int
) -> RunResult:
    clock, tests_before = PhaseClock(), test_time.total
    try:
        with clock.timing("setup"):
            workspace = Workspace.for_task(task, settings.workspace_parent, reuse=True)
    except WorkspaceError as exc:
        return _error(task, policy, fault, StopReason.INFRASTRUCTURE, str(exc))
    initial = workspace.initial
    try:
        with clock.timing("setup"):
            target = solved_files(task, initial)  # the reference agent's pieces, and the run's macro coverage
            try:
                pieces = partial(piece_calls, settings.macros, initial, target)
                agent = settings.agent(setup_for(settings.agent, task, initial, seed, pieces))
            except Exception as exc:
                problem = f"the agent could not be built: {type(exc).__name__}: {exc}"
                return _error(task, policy, fault, StopReason.AGENT_EXCEPTION, problem)
        execution = execute(
            task,
            policy,
            agent,
            ToolContext(workspace, task.tests, settings.test_timeout, settings.sandbox, task.pytest_config),
            settings.macros,
            _limits(task, settings),
            fault_point,
            partial(verify, task, workspace, settings.sandbox),
            clock,
        )
    finally:
        with clock.timing("cleanup"):
            workspace.remove()
    outcome, output, error = judged(execution)
    record = run_record(task, policy, fault, execution, outcome, output, error, settings.token_source)
    reference = changed_lines(initial, target)
    return dataclasses.replace(
        record,
        macro_coverage=share(reference, execution.macro_lines),
        phases=clock.record(tests=test_time.total - tests_before),
    )


def _limits(task: Task, settings: RunSettings) -> Limits:
    return Limits(
        settings.max_steps or task.max_steps,
        settings.retrieval_k,
        settings.max_tokens,
        settings.token_source == TokenSource.PROVIDER,
        settings.suggestions,
    )


def judged(execution: Execution) -> tuple[Outcome, str, str | None]:
    """The run's outcome, verifier output and error: the verifier's verdict, or what the way it stopped means."""
    verdict, ending = execution.verdict, execution.ending
    if verdict is not None:
        outcome = (
            Outcome.ERROR if verdict.infrastructure_error else Outcome.PASSED if verdict.accepted else Outcome.FAILED
        )
        return outcome, verdict.output, verdict.infrastructure_error
    if isinstance(ending, AgentFailed):
        return Outcome.ERROR, "", execution.error
    if isinstance(ending, StepLimitReached):
        return Outcome.FAILED, f"stopped at the step limit ({execution.steps} steps)", None
    return Outcome.FAILED, f"stopped ({execution.stop_reason}): {execution.error}", None


def bounded(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note of what was cut, so one huge rewrite cannot bloat a report."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... diff truncated: {len(text) - limit} more characters\n"


def _error(task: Task, policy: Policy, fault: str, stop_reason: str, error: str) -> RunResult:
    return RunResult.infrastructure_error(
        task=task.id, family=task.family, policy=policy.name, fault=fault, stop_reason=stop_reason, error=error
    )


def run_record(
    task: Task,
    policy: Policy,
    fault: str,
    execution: Execution,
    outcome: Outcome,
    output: str,
    error: str | None,
    token_source: TokenSource = TokenSource.PROVIDER,
) -> RunResult:
    """The record of a finished execution; also what the MCP server writes to its audit log for a served task."""
    transcript, changes = execution.transcript, execution.changes
    usage = transcript.provider_usage()
    billed = usage is not None and token_source == TokenSource.PROVIDER
    prompt = usage.prompt if usage and billed else transcript.prompt_tokens
    completion = usage.completion if usage and billed else transcript.completion_tokens
    return RunResult(
        task=task.id,
        family=task.family,
        policy=policy.name,
        fault=fault,
        outcome=outcome,
        mode=execution.mode,
        steps=execution.steps,
        tokens=prompt + completion,
        prompt_tokens=prompt,
        completion_tokens=completion,
        macro_calls=execution.macro_calls,
        created=list(changes.created),
        modified=list(changes.modified),
        deleted=list(changes.deleted),
        stop_reason=execution.stop_reason,
        failure_class=execution.failure.failure_class if execution.failure else None,
        degraded=execution.degraded,
        transitions=list(execution.transitions),
        contract_violations=list(execution.violations),
        macro_log=list(execution.macro_log),
        verifier_output=output,
        diff=bounded(execution.diff, MAX_DIFF_CHARS),
        macro_lines=as_records(execution.macro_lines),
        error=error,
        transcript=transcript.to_list(),
        provider_prompt_tokens=usage.prompt if usage else None,
        provider_completion_tokens=usage.completion if usage else None,
        provider_cached_tokens=usage.cached if usage else None,
        token_source=TokenSource.PROVIDER if billed else TokenSource.LOCAL,
        local_tokens=transcript.tokens,
        cost=usage.cost if usage else None,
        notes=list(execution.notes),
        model_calls=[c.exchange for c in transcript.calls if c.exchange is not None],
    )
