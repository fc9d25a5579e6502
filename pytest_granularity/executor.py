"""The recovery executor: a finite-state machine that drives an agent through one run.

It does not know which agent it drives. The policy routes the run to ``micro`` or ``macro``;
in macro mode only macro skills (and ``finish``) are offered, and every macro call goes through
its contract. A failed macro is classified into exactly one failure class, the policy's
recovery decides, and the run either stops or degrades, one way, to the micro tools in the same
workspace, with a message that says what failed and what it changed (so recovery's tokens are
counted). Ending the macro phase without a successful macro call (the agent found no macro
that applies and called ``finish``) is an observed failure too: ``precondition_mismatch``, and
the same recovery decision follows. Every transition is recorded. A runaway agent is stopped at
the step limit (or the token budget) as a failed run, not an error.

What a model may do wrong is part of the benchmark: a reply with text and no tool call is
billed and answered with a nudge; several tool calls in one reply run in order (and the record
says so); malformed arguments and unknown tools get an error observation, except a macro's
malformed arguments, which are its ``protocol_failure``. An exception from the agent ends the
run where it is, with the transcript so far: a context-length error as a failure, anything
else as an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .agents import Agent, ContextLengthExceeded, InfrastructureError, as_reply
from .failures import PRECONDITION_MISMATCH, PROTOCOL_FAILURE
from .macros import MacroContext, MacroOutcome, MacroRegistry, invoke
from .macros.registry import DEFAULT_TOP_K
from .macros.runtime import FaultPoint, no_faults
from .policies import MACRO, MICRO, FailureEvent, Policy
from .schemas import first_error
from .tasks import Task
from .tools import FINISH, MICRO_TOOLS, ToolContext, call_tool
from .transcript import Reply, ToolCall, Transcript

STOP_FINISHED = "finished"
STOP_STEP_LIMIT = "step_limit"
STOP_MACRO_FAILED = "macro_failed"
STOP_TOKEN_LIMIT = "token_limit"
STOP_CONTEXT_LENGTH = "context_length"
STOP_INFRASTRUCTURE = "infrastructure"
STOP_AGENT_EXCEPTION = "agent_exception"
STOPPED_WITHOUT_VERIFYING = (STOP_TOKEN_LIMIT, STOP_CONTEXT_LENGTH, STOP_INFRASTRUCTURE, STOP_AGENT_EXCEPTION)
"""Ends before the work is done: the verifier is not run (the step limit is one too, see runner)."""

SYSTEM_PROMPT = (
    "You are a coding agent working in a Python repository. Mode: {mode}. "
    "Use the tools to change the workspace so that the task is done, then call finish. "
    "Only the task's hidden verifier decides whether the task is done."
)
DEGRADE_NOTE = (
    "The macro {macro} failed ({failure_class}): {reason}\nPaths it changed: {changed}.\n"
    "Macro skills are no longer available. Finish the task with the micro tools, in this same workspace."
)
NO_MACRO_REASON = "no applicable macro: the macro phase ended without a successful macro call"
NO_MACRO_NOTE = (
    "No macro skill was applied ({failure_class}): {reason}.\n"
    "Macro skills are no longer available. Finish the task with the micro tools, in this same workspace."
)
NUDGE = "Your reply called no tool. Every reply must call exactly one of the tools offered; call finish when the task is done."


class State(str, Enum):
    ROUTE = "route"
    MICRO = "micro"
    MACRO = "macro"
    CLASSIFY = "classify"
    DECIDE = "decide"
    DEGRADE = "degrade"
    VERIFY = "verify"
    STOPPED = "stopped"


FAILURE_EVENT = "failure_classified"

TRANSITIONS: dict[tuple[State, str], State] = {
    (State.ROUTE, "micro"): State.MICRO,
    (State.ROUTE, "macro"): State.MACRO,
    (State.MACRO, "macro_ok"): State.MACRO,
    (State.MACRO, "fallback_skill"): State.MACRO,
    (State.MACRO, "macro_failed"): State.CLASSIFY,
    (State.MACRO, "no_macro_applies"): State.CLASSIFY,
    (State.CLASSIFY, FAILURE_EVENT): State.DECIDE,
    (State.DECIDE, "degrade"): State.DEGRADE,
    (State.DECIDE, "stop"): State.VERIFY,
    (State.DEGRADE, "switch_to_micro"): State.MICRO,
    (State.MICRO, "finish"): State.VERIFY,
    (State.MACRO, "finish"): State.VERIFY,
    (State.MICRO, "step_limit"): State.STOPPED,
    (State.MACRO, "step_limit"): State.STOPPED,
    (State.MICRO, "agent_stopped"): State.STOPPED,
    (State.MACRO, "agent_stopped"): State.STOPPED,
}
"""The whole machine: (state, event) → next state. Degradation has no way back to MACRO."""


def transition_table() -> str:
    return "\n".join(f"{s.value:<9} --{e}--> {t.value}" for (s, e), t in TRANSITIONS.items())


class Machine:
    def __init__(self) -> None:
        self.state = State.ROUTE
        self.log: list[str] = []

    def fire(self, event: str, detail: str = "") -> None:
        target = TRANSITIONS.get((self.state, event))
        if target is None:
            raise RuntimeError(f"no transition from {self.state.value} on {event}")
        self.log.append(f"{self.state.value} --{event}{'(' + detail + ')' if detail else ''}--> {target.value}")
        self.state = target


@dataclass
class Execution:
    transcript: Transcript
    mode: str
    steps: int = 0
    macro_calls: int = 0
    stop_reason: str = ""
    failure: MacroOutcome | None = None
    degraded: bool = False
    violations: list[str] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    offered: tuple[str, ...] = ()
    nudges: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class Limits:
    """``max_steps`` bounds model turns (tool calls and replies without one); ``max_tokens`` the run's bill."""

    max_steps: int
    retrieval_k: int = DEFAULT_TOP_K
    max_tokens: int | None = None
    provider_tokens: bool = True
    """Measure ``max_tokens`` in the provider's tokens when it reports them (else the local count)."""


def execute(
    task: Task,
    policy: Policy,
    agent: Agent,
    ctx: ToolContext,
    macros: MacroRegistry,
    limits: Limits,
    fault: FaultPoint = no_faults,
) -> Execution:
    run = Run.start(task, policy, ctx, macros, limits, fault)
    while (reply := _ask(run.execution, run.machine, agent)) is not None and run.reply(reply):
        pass
    return run.execution


@dataclass
class Run:
    """One run in progress, advanced one tool call at a time.

    ``execute`` feeds it an agent's calls; the MCP server feeds it a client's, so both go through
    the same machine, tool validation, macro contracts and recovery.
    """

    execution: Execution
    machine: Machine
    policy: Policy
    ctx: ToolContext
    macros: MacroRegistry
    limits: Limits
    fault: FaultPoint

    @classmethod
    def start(
        cls,
        task: Task,
        policy: Policy,
        ctx: ToolContext,
        macros: MacroRegistry,
        limits: Limits,
        fault: FaultPoint = no_faults,
    ) -> Run:
        """Route the task and set the tool list of the mode it starts in."""
        machine = Machine()
        mode = policy.route(task, ctx.workspace)
        machine.fire(mode)
        offered = macros.offer(task.prompt, limits.retrieval_k) if mode == MACRO else []
        tools = _micro_schemas() if mode == MICRO else [*macros.tool_schemas(offered), MICRO_TOOLS[FINISH].schema()]
        transcript = Transcript(SYSTEM_PROMPT.format(mode=mode), task.prompt, tools)
        execution = Execution(transcript, mode, transitions=machine.log, offered=tuple(m.name for m in offered))
        return cls(execution, machine, policy, ctx, macros, limits, fault)

    @property
    def transcript(self) -> Transcript:
        return self.execution.transcript

    def step(self, call: ToolCall) -> bool:
        """Record a model call that returned just ``call`` and act on it; False once the run has ended."""
        return self.reply(Reply(calls=(call,)))

    def reply(self, reply: Reply) -> bool:
        """Record a model call's reply and act on its tool calls in order; False once the run has ended."""
        execution, machine, limits = self.execution, self.machine, self.limits
        calls = execution.transcript.record_reply(reply)
        if _over_budget(execution.transcript, limits):
            _stop(execution, machine, STOP_TOKEN_LIMIT, f"spent more than {limits.max_tokens} tokens")
            return False
        if not calls:
            if _at_step_limit(execution, machine, limits):
                return False
            execution.nudges += 1
            execution.transcript.add_note(NUDGE)
            return True
        if len(calls) > 1:
            execution.notes.append(
                f"model call {len(execution.transcript.calls)} returned {len(calls)} tool calls; ran them in order"
            )
        return all(
            _step(execution, machine, call, self.policy, self.ctx, self.macros, limits, self.fault) for call in calls
        )


def _ask(execution: Execution, machine: Machine, agent: Agent) -> Reply | None:
    """The agent's next reply; None when the agent failed (the run stops, the reason recorded)."""
    transcript = execution.transcript
    try:
        return as_reply(agent.next_call(transcript.messages, transcript.tools))
    except ContextLengthExceeded as exc:
        _stop(execution, machine, STOP_CONTEXT_LENGTH, str(exc))
    except InfrastructureError as exc:
        _stop(execution, machine, STOP_INFRASTRUCTURE, str(exc))
    except Exception as exc:
        _stop(execution, machine, STOP_AGENT_EXCEPTION, f"the agent raised {type(exc).__name__}: {exc}")
    return None


def _stop(execution: Execution, machine: Machine, reason: str, detail: str) -> None:
    machine.fire("agent_stopped", reason)
    execution.stop_reason = reason
    execution.error = detail


def _at_step_limit(execution: Execution, machine: Machine, limits: Limits) -> bool:
    if execution.steps + execution.nudges < limits.max_steps:
        return False
    machine.fire("step_limit")
    execution.stop_reason = STOP_STEP_LIMIT
    return True


def _over_budget(transcript: Transcript, limits: Limits) -> bool:
    if limits.max_tokens is None:
        return False
    usage = transcript.provider_usage() if limits.provider_tokens else None
    spent = usage.prompt + usage.completion if usage is not None else transcript.tokens
    return spent > limits.max_tokens


def _step(
    execution: Execution,
    machine: Machine,
    call: ToolCall,
    policy: Policy,
    ctx: ToolContext,
    macros: MacroRegistry,
    limits: Limits,
    fault: FaultPoint,
) -> bool:
    """Run one tool call; False when the run ends here."""
    if call.name == FINISH and machine.state is State.MACRO and not _macro_succeeded(execution):
        return _no_macro_applies(execution, machine, policy, call.id)
    if call.name == FINISH:
        machine.fire("finish")
        execution.stop_reason = STOP_FINISHED
        return False
    if _at_step_limit(execution, machine, limits):
        return False
    execution.steps += 1
    if machine.state is State.MACRO and call.name in macros:
        return _macro_step(execution, machine, call, policy, ctx, macros, fault)
    execution.transcript.add_observation(call.id, _micro_step(call, machine.state, ctx))
    return True


def _micro_step(call: ToolCall, state: State, ctx: ToolContext) -> str:
    tool = MICRO_TOOLS.get(call.name) if state is State.MICRO else None
    if tool is None:
        allowed = "micro tools" if state is State.MICRO else "macro skills"
        return f"error: '{call.name}' is not available; only {allowed} and finish can be called now"
    if call.error is not None:
        return f"error: the arguments of {call.name} are not a JSON object ({call.error}); nothing was done"
    return call_tool(tool, ctx, call.arguments).text


def _call_macro(
    execution: Execution, name: str, args: dict[str, Any], ctx: ToolContext, macros: MacroRegistry, fault: FaultPoint
) -> MacroOutcome:
    macro = macros.get(name)
    assert macro is not None
    execution.macro_calls += 1
    dependencies = {d: macros.get(d) for d in macro.contract.get("depends_on", [])}
    outcome = invoke(
        macro, MacroContext(ctx.workspace, dict(args), ctx.tests, ctx.test_timeout, dependencies, ctx.sandbox), fault
    )
    macros.record(name, outcome.failure_class, outcome.injected)
    execution.violations.extend(outcome.violations)
    execution.calls.append(
        {"macro": name, "failure_class": outcome.failure_class, "seconds": round(outcome.seconds, 4)}
    )
    return outcome


def _malformed(execution: Execution, call: ToolCall) -> MacroOutcome:
    """A macro call whose arguments are not JSON: its ``protocol_failure``, without running it."""
    execution.macro_calls += 1
    execution.calls.append({"macro": call.name, "failure_class": PROTOCOL_FAILURE, "seconds": 0.0})
    return MacroOutcome(call.name, PROTOCOL_FAILURE, f"arguments are not a JSON object ({call.error})")


def _fallback(macros: MacroRegistry, name: str, args: dict[str, Any], tried: set[str]) -> str | None:
    """The declared fallback macro of ``name``, when it is registered, available, untried and fits the arguments."""
    macro = macros.get(name)
    fallback = macro.contract.get("fallback_skill") if macro else None
    if not fallback or fallback in tried or fallback not in macros or macros.unavailable(fallback):
        return None
    target = macros.get(fallback)
    return fallback if target is not None and first_error(target.parameters, args) is None else None


def _macro_step(
    execution: Execution,
    machine: Machine,
    call: ToolCall,
    policy: Policy,
    ctx: ToolContext,
    macros: MacroRegistry,
    fault: FaultPoint,
) -> bool:
    """Run a macro call (and, once, its declared fallback macro); False when the run stops here."""
    tried = {call.name}
    reason = macros.unavailable(call.name) or (None if call.name in execution.offered else "not offered for this task")
    if reason is not None:
        fallback = _fallback(macros, call.name, call.arguments, tried)
        if fallback is None:
            execution.transcript.add_observation(call.id, f"error: {call.name} is unavailable: {reason}")
            return True
        machine.fire("fallback_skill", fallback)
        outcome = _call_macro(execution, fallback, call.arguments, ctx, macros, fault)
    elif call.error is not None:
        outcome = _malformed(execution, call)
    else:
        outcome = _call_macro(execution, call.name, call.arguments, ctx, macros, fault)
        fallback = None if outcome.ok else _fallback(macros, call.name, call.arguments, tried)
        if fallback is not None:
            machine.fire("fallback_skill", fallback)
            outcome = _call_macro(execution, fallback, call.arguments, ctx, macros, fault)
    execution.transcript.add_observation(call.id, outcome.observation())
    if outcome.ok:
        machine.fire("macro_ok", outcome.macro)
        return True
    machine.fire("macro_failed", outcome.macro)
    changed = ", ".join(outcome.changes.paths) or "none"
    note = DEGRADE_NOTE.format(
        macro=outcome.macro, failure_class=outcome.failure_class, reason=outcome.reason, changed=changed
    )
    return _decide(execution, machine, policy, outcome, note)


def _macro_succeeded(execution: Execution) -> bool:
    return any(c["failure_class"] is None for c in execution.calls)


def _no_macro_applies(execution: Execution, machine: Machine, policy: Policy, finish_id: str) -> bool:
    """The agent ended the macro phase with no successful macro call: an observed precondition mismatch.

    On recovery the note is the answer to that ``finish`` call, so the conversation stays valid
    on the wire (every tool call answered) and is billed exactly as a note would be.
    """
    outcome = MacroOutcome("", PRECONDITION_MISMATCH, NO_MACRO_REASON)
    machine.fire("no_macro_applies")
    note = NO_MACRO_NOTE.format(failure_class=PRECONDITION_MISMATCH, reason=NO_MACRO_REASON)
    return _decide(execution, machine, policy, outcome, note, finish_id)


def _decide(
    execution: Execution, machine: Machine, policy: Policy, outcome: MacroOutcome, note: str, answers: str = ""
) -> bool:
    """Classify a failure, let the policy's recovery decide; False when the run stops here.

    The note goes to the agent as a harness message, or as the answer to the call ``answers``.
    """
    execution.failure = outcome
    machine.fire(FAILURE_EVENT, outcome.failure_class or "")
    event = FailureEvent(
        failure_class=outcome.failure_class or "",
        side_effects=bool(outcome.changes),
        validation_failed=bool(outcome.validation_problems),
        changed_paths=len(outcome.changes.paths),
    )
    if not policy.recover(event):
        machine.fire("stop")
        execution.stop_reason = STOP_MACRO_FAILED
        return False
    machine.fire("degrade")
    if answers:
        execution.transcript.add_observation(answers, note)
    else:
        execution.transcript.add_note(note)
    execution.transcript.set_tools(_micro_schemas())
    machine.fire("switch_to_micro")
    execution.degraded = True
    return True


def _micro_schemas() -> list[dict[str, Any]]:
    return [t.schema() for t in MICRO_TOOLS.values()]
