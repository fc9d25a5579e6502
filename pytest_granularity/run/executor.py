"""The recovery executor: a finite-state machine that drives an agent through one run.

It does not know which agent it drives. The policy routes the run to ``micro`` or ``macro``;
in macro mode only macro skills (and ``finish``) are offered, and every macro call goes through
its contract. A failed macro is classified into exactly one failure class, the policy's
recovery decides, and the run either stops or degrades, one way, to the micro tools in the same
workspace, with a message that says what failed and what it changed (so recovery's tokens are
counted). Ending the macro phase without a successful macro call (the agent found no macro
that applies and called ``finish``) is an observed failure too: ``precondition_mismatch``, and
the same recovery decision follows. Once a macro that makes pieces of a change (its contract's
``pieces``) has succeeded, a policy that hands over offers ``use_micro_tools``: the agent ends the
macro phase there and finishes with the micro tools (partial use), the same one-way switch with no
failure. Every transition is recorded. A runaway agent is stopped at
the step limit (or the token budget) as a failed run, not an error.

What a model may do wrong is part of the benchmark: a reply with text and no tool call is
billed and answered with a nudge; several tool calls in one reply run in order (and the record
says so); malformed arguments and unknown tools get an error observation, except a macro's
malformed arguments, which are its ``protocol_failure``. An exception from the agent ends the
run where it is, with the transcript so far: a context-length error as a failure, anything
else as an error.

One ``Run`` object owns a run's machine, transcript and limits. Every way a run ends is a
``RunEnded`` exception, raised where the run ends and recorded once, with what the run changed,
in its ``Execution``; a run that ends in the verify state is judged there, by the verifier it was
given (none for a task served over MCP).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from ..agents import Agent, ContextLengthExceeded, InfrastructureError, as_reply
from ..core.changed_lines import Lines, changed_lines
from ..core.defaults import DEFAULT_TOP_K
from ..core.errors import GranularityError
from ..core.failures import FailureClass
from ..core.modes import Mode
from ..core.phases import PhaseClock
from ..core.result import MacroLogEntry, StopReason
from ..core.schemas import first_error
from ..core.tasks import Task
from ..core.tools import FINISH, HAND_OVER, HAND_OVER_TOOL, MICRO_TOOLS, RUN_TESTS, argument_problem, call_tool
from ..core.transcript import Reply, ToolCall, Transcript
from ..core.workspace import Changes
from ..macros import MacroContext, MacroOutcome, MacroRegistry
from ..macros.call_memo import invoke_remembered
from ..macros.runtime import FaultPoint, no_faults
from ..macros.suggestions import OFF, Offer, suggested_calls
from ..process.tool_context import ToolContext
from ..verifier.verify import Verdict
from .policies import FailureEvent, Policy

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
HAND_OVER_NOTE = (
    "The macro phase is over; the workspace keeps what the macro calls did. "
    "Finish the task with the micro tools, in this same workspace."
)
NUDGE = (
    "Your reply called no tool. Every reply must call exactly one of the tools offered; "
    "call finish when the task is done."
)


class State(StrEnum):
    ROUTE = "route"
    MICRO = Mode.MICRO.value
    MACRO = Mode.MACRO.value
    CLASSIFY = "classify"
    DECIDE = "decide"
    DEGRADE = "degrade"
    VERIFY = "verify"
    STOPPED = "stopped"


FAILURE_EVENT = "failure_classified"

TRANSITIONS: dict[tuple[State, str], State] = {
    (State.ROUTE, Mode.MICRO): State.MICRO,
    (State.ROUTE, Mode.MACRO): State.MACRO,
    (State.MACRO, "macro_ok"): State.MACRO,
    (State.MACRO, "fallback_skill"): State.MACRO,
    (State.MACRO, "macro_failed"): State.CLASSIFY,
    (State.MACRO, "no_macro_applies"): State.CLASSIFY,
    (State.MACRO, "hand_over"): State.MICRO,
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
"""The whole machine: (state, event) → next state. Neither degradation nor a hand-over (partial use: the macros
did part of the task, the micro tools finish it) has a way back to MACRO."""


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


class RunEnded(GranularityError):
    """How a run ended. Raised where it ends, caught once by its ``Run`` and recorded in its ``Execution``.

    ``reason`` is the ``stop_reason`` a run record carries; ``event`` is the machine's event for
    this ending (None for an ending from outside the machine, such as a closed MCP session).
    """

    reason: ClassVar[StopReason]
    event: ClassVar[str | None]

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or self.reason)
        self.detail = detail

    @property
    def event_detail(self) -> str:
        """What the transition log shows in brackets after the event."""
        return ""


class Finished(RunEnded):
    """The agent called ``finish``: the verifier judges the workspace."""

    reason = StopReason.FINISHED
    event = "finish"


class MacroFailureNotRecovered(RunEnded):
    """A macro failed and the policy's recovery stops the run: the verifier judges what the macro left."""

    reason = StopReason.MACRO_FAILED
    event = "stop"


class StepLimitReached(RunEnded):
    """A runaway agent: a failed run, not an error, and not verified."""

    reason = StopReason.STEP_LIMIT
    event = "step_limit"


class AgentStopped(RunEnded):
    """The run stopped before the work was done, so the verifier is not run."""

    event = "agent_stopped"

    @property
    def event_detail(self) -> str:
        return self.reason


class TokenLimitReached(AgentStopped):
    reason = StopReason.TOKEN_LIMIT


class ContextLengthExhausted(AgentStopped):
    reason = StopReason.CONTEXT_LENGTH


class AgentFailed(AgentStopped):
    """The agent could not go on: the run is an error, not a failure of the agent's work."""


class InfrastructureFailed(AgentFailed):
    reason = StopReason.INFRASTRUCTURE


class AgentRaised(AgentFailed):
    reason = StopReason.AGENT_EXCEPTION


Verifier = Callable[[], Verdict]
"""Judges the run's workspace; called in the verify state."""


@dataclass
class Execution:
    """What a run did: its record in progress, complete once ``ending`` is set."""

    transcript: Transcript
    mode: str
    steps: int = 0
    macro_calls: int = 0
    failure: MacroOutcome | None = None
    degraded: bool = False
    violations: list[str] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    macro_log: list[MacroLogEntry] = field(default_factory=list)
    offered: tuple[str, ...] = ()
    nudges: int = 0
    notes: list[str] = field(default_factory=list)
    ending: RunEnded | None = None
    changes: Changes = field(default_factory=Changes)
    """What the run changed in its workspace, taken when it ended (before any verifier runs there)."""
    diff: str = ""
    verdict: Verdict | None = None
    """The verifier's verdict, when the run ended in the verify state and had a verifier."""
    clock: PhaseClock = field(default_factory=PhaseClock)
    """Where the run's time went, by phase (the runner adds set-up and clean-up)."""
    may_hand_over: bool = False
    """A macro that makes pieces of a change has succeeded under a policy that hands over: ``use_micro_tools``
    is offered."""
    macro_made: Lines | None = None
    """The run's changed lines when its macro phase ended (degraded or handed over), after a macro call."""
    macro_lines: Lines = field(default_factory=Counter)
    """The final change's lines that macro calls wrote: those it shares with ``macro_made``."""

    @property
    def stop_reason(self) -> str:
        return self.ending.reason if self.ending is not None else ""

    @property
    def error(self) -> str | None:
        return self.ending.detail if self.ending is not None else None


@dataclass(frozen=True)
class Limits:
    """``max_steps`` bounds model turns (tool calls and replies without one); ``max_tokens`` the run's bill."""

    max_steps: int
    retrieval_k: int = DEFAULT_TOP_K
    max_tokens: int | None = None
    provider_tokens: bool = True
    """Measure ``max_tokens`` in the provider's tokens when it reports them (else the local count)."""
    suggestions: str = OFF
    """How a macro phase offers each macro's suggested calls (``macros.suggestions.MODES``)."""


def execute(
    task: Task,
    policy: Policy,
    agent: Agent,
    ctx: ToolContext,
    macros: MacroRegistry,
    limits: Limits,
    fault: FaultPoint = no_faults,
    verifier: Verifier | None = None,
    clock: PhaseClock | None = None,
) -> Execution:
    """Drive ``agent`` through one run to its end."""
    run = Run.start(task, policy, ctx, macros, limits, fault, verifier, clock)
    while not run.ended:
        run.advance(agent)
    return run.execution


@dataclass
class Run:
    """One run in progress, advanced one model reply (or one tool call) at a time.

    ``execute`` feeds it an agent's replies; the MCP server feeds it a client's calls, so both go
    through the same machine, tool validation, macro contracts and recovery.
    """

    execution: Execution
    machine: Machine
    policy: Policy
    ctx: ToolContext
    macros: MacroRegistry
    limits: Limits
    fault: FaultPoint
    verifier: Verifier | None = None
    offer: Offer | None = None

    @classmethod
    def start(
        cls,
        task: Task,
        policy: Policy,
        ctx: ToolContext,
        macros: MacroRegistry,
        limits: Limits,
        fault: FaultPoint = no_faults,
        verifier: Verifier | None = None,
        clock: PhaseClock | None = None,
    ) -> Run:
        """Route the task and set the tool list of the mode it starts in."""
        machine, clock = Machine(), clock or PhaseClock()
        with clock.timing("routing"):
            mode = policy.route(task, ctx.workspace)
            offer = _macro_offer(task, ctx, macros, limits) if mode == Mode.MACRO else None
            macro_tools = offer.schemas() if offer is not None else []
        machine.fire(mode)
        tools = _micro_schemas() if mode == Mode.MICRO else [*macro_tools, MICRO_TOOLS[FINISH].schema()]
        transcript = Transcript(SYSTEM_PROMPT.format(mode=mode), task.prompt, tools)
        offered_names = tuple(t["function"]["name"] for t in macro_tools)
        execution = Execution(transcript, mode, transitions=machine.log, offered=offered_names, clock=clock)
        return cls(execution, machine, policy, ctx, macros, limits, fault, verifier, offer)

    @property
    def transcript(self) -> Transcript:
        return self.execution.transcript

    @property
    def ended(self) -> bool:
        return self.execution.ending is not None

    def advance(self, agent: Agent) -> None:
        """Ask ``agent`` for its next reply and act on it."""
        try:
            self._act(self._ask(agent))
        except RunEnded as ending:
            self.end(ending)

    def step(self, call: ToolCall) -> None:
        """Record a model call that returned just ``call`` and act on it."""
        self.reply(Reply(calls=(call,)))

    def reply(self, reply: Reply) -> None:
        """Record a model call's reply and act on its tool calls in order."""
        try:
            self._act(reply)
        except RunEnded as ending:
            self.end(ending)

    def end(self, ending: RunEnded) -> None:
        """Record how the run ended and what it changed; in the verify state, the verifier judges it now."""
        if ending.event is not None:
            self.machine.fire(ending.event, ending.event_detail)
        execution = self.execution
        execution.ending = ending
        with execution.clock.timing("changes"):
            execution.changes, execution.diff = self.ctx.workspace.changes_and_diff()
            if execution.macro_calls:
                final = self._changed_lines()
                made = final if execution.macro_made is None else execution.macro_made
                execution.macro_lines = final & made
        if self.machine.state is State.VERIFY and self.verifier is not None:
            with execution.clock.timing("verifier"):
                execution.verdict = self.verifier()

    def _ask(self, agent: Agent) -> Reply:
        transcript = self.transcript
        try:
            with self.execution.clock.timing("agent"):
                return as_reply(agent.next_call(transcript.messages, transcript.tools))
        except ContextLengthExceeded as exc:
            raise ContextLengthExhausted(str(exc)) from exc
        except InfrastructureError as exc:
            raise InfrastructureFailed(str(exc)) from exc
        except Exception as exc:
            raise AgentRaised(f"the agent raised {type(exc).__name__}: {exc}") from exc

    def _act(self, reply: Reply) -> None:
        execution, limits = self.execution, self.limits
        calls = execution.transcript.record_reply(reply)
        if self._over_budget():
            raise TokenLimitReached(f"spent more than {limits.max_tokens} tokens")
        if not calls:
            self._check_step_limit()
            execution.nudges += 1
            execution.transcript.add_note(NUDGE)
            return
        if len(calls) > 1:
            execution.notes.append(
                f"model call {len(execution.transcript.calls)} returned {len(calls)} tool calls; ran them in order"
            )
        for call in calls:
            self._call(call)

    def _check_step_limit(self) -> None:
        if self.execution.steps + self.execution.nudges >= self.limits.max_steps:
            raise StepLimitReached()

    def _over_budget(self) -> bool:
        limits, transcript = self.limits, self.transcript
        if limits.max_tokens is None:
            return False
        usage = transcript.provider_usage() if limits.provider_tokens else None
        spent = usage.prompt + usage.completion if usage is not None else transcript.tokens
        return spent > limits.max_tokens

    def _call(self, call: ToolCall) -> None:
        """Run one tool call."""
        refusal = _finish_refusal(call) if call.name == FINISH else None
        if refusal is not None:
            self._check_step_limit()
            self.execution.steps += 1
            self.transcript.add_observation(call.id, refusal)
            return
        if call.name == FINISH and self.machine.state is State.MACRO and not self._macro_succeeded():
            self._no_macro_applies(call.id)
            return
        if call.name == FINISH:
            raise Finished()
        self._check_step_limit()
        self.execution.steps += 1
        if call.name == HAND_OVER and self.machine.state is State.MACRO and self.execution.may_hand_over:
            self._hand_over(call.id)
            return
        if self.machine.state is State.MACRO and call.name in self.macros:
            self._macro_step(call)
            return
        with self.execution.clock.timing(RUN_TESTS if call.name == RUN_TESTS else "tools"):
            observation = _micro_step(call, self.machine.state, self.ctx)
        self.transcript.add_observation(call.id, observation)

    def _call_macro(self, name: str, args: dict[str, Any]) -> MacroOutcome:
        macros, ctx = self.macros, self.ctx
        macro = macros.get(name)
        assert macro is not None
        self.execution.macro_calls += 1
        dependencies = {d: macros.get(d) for d in macro.contract.get("depends_on", [])}
        with self.execution.clock.timing("macros"):
            outcome = invoke_remembered(
                macro,
                MacroContext(
                    ctx.workspace,
                    dict(args),
                    ctx.tests,
                    ctx.test_timeout,
                    dependencies,
                    ctx.sandbox,
                    pytest_config=ctx.pytest_config,
                ),
                self.fault,
            )
        macros.record(name, outcome.failure_class, outcome.injected)
        self.execution.violations.extend(outcome.violations)
        self.execution.macro_log.append(MacroLogEntry(name, outcome.failure_class, round(outcome.seconds, 4)))
        return outcome

    def _malformed(self, call: ToolCall) -> MacroOutcome:
        """A macro call whose arguments are not JSON: its ``protocol_failure``, without running it."""
        self.execution.macro_calls += 1
        self.execution.macro_log.append(MacroLogEntry(call.name, FailureClass.PROTOCOL_FAILURE, 0.0))
        return MacroOutcome(call.name, FailureClass.PROTOCOL_FAILURE, f"arguments are not a JSON object ({call.error})")

    def _macro_step(self, call: ToolCall) -> None:
        """Run a macro call (and, once, its declared fallback macro)."""
        execution, machine, macros = self.execution, self.machine, self.macros
        tried = {call.name}
        reason = macros.unavailable(call.name) or (
            None if call.name in execution.offered else "not offered for this task"
        )
        if reason is not None:
            fallback = _fallback(macros, call.name, call.arguments, tried)
            if fallback is None:
                execution.transcript.add_observation(call.id, f"error: {call.name} is unavailable: {reason}")
                return
            machine.fire("fallback_skill", fallback)
            outcome = self._call_macro(fallback, call.arguments)
        elif call.error is not None:
            outcome = self._malformed(call)
        else:
            outcome = self._call_macro(call.name, call.arguments)
            fallback = None if outcome.ok else _fallback(macros, call.name, call.arguments, tried)
            if fallback is not None:
                machine.fire("fallback_skill", fallback)
                outcome = self._call_macro(fallback, call.arguments)
        execution.transcript.add_observation(call.id, outcome.observation())
        if outcome.ok:
            machine.fire("macro_ok", outcome.macro)
            self._reoffer(outcome.macro, call.arguments)
            return
        machine.fire("macro_failed", outcome.macro)
        changed = ", ".join(outcome.changes.paths) or "none"
        note = DEGRADE_NOTE.format(
            macro=outcome.macro, failure_class=outcome.failure_class, reason=outcome.reason, changed=changed
        )
        self._decide(outcome, note)

    def _reoffer(self, name: str, args: dict[str, Any]) -> None:
        """The macro tools once ``name(args)`` has succeeded: the suggestions that still hold (:meth:`Offer.after`),
        and ``use_micro_tools`` once a macro that makes pieces of a change has succeeded under a policy that hands
        over."""
        if self.offer is None:
            return
        if self.offer.mode != OFF:
            with self.execution.clock.timing("routing"):
                self.offer = self.offer.after(name, args, self.ctx.workspace.files())
        macro = self.macros.get(name)
        if self.policy.hands_over and macro is not None and macro.pieces is not None:
            self.execution.may_hand_over = True
        hand_over = [HAND_OVER_TOOL.schema()] if self.execution.may_hand_over else []
        tools = [*self.offer.schemas(), *hand_over, MICRO_TOOLS[FINISH].schema()]
        if tools != self.transcript.tools:
            self.transcript.set_tools(tools)
            control = {FINISH, HAND_OVER}
            self.execution.offered = tuple(t["function"]["name"] for t in tools if t["function"]["name"] not in control)

    def _hand_over(self, call_id: str) -> None:
        """The agent ends the macro phase to finish with the micro tools: what the macros did stays."""
        self.execution.macro_made = self._changed_lines()
        self.machine.fire("hand_over")
        self.transcript.add_observation(call_id, HAND_OVER_NOTE)
        self.transcript.set_tools(_micro_schemas())

    def _changed_lines(self) -> Lines:
        workspace = self.ctx.workspace
        return changed_lines(workspace.initial, workspace.files())

    def _macro_succeeded(self) -> bool:
        return any(c.failure_class is None for c in self.execution.macro_log)

    def _no_macro_applies(self, finish_id: str) -> None:
        """The agent ended the macro phase with no successful macro call: an observed precondition mismatch.

        On recovery the note is the answer to that ``finish`` call, so the conversation stays valid
        on the wire (every tool call answered) and is billed exactly as a note would be.
        """
        outcome = MacroOutcome("", FailureClass.PRECONDITION_MISMATCH, NO_MACRO_REASON)
        self.machine.fire("no_macro_applies")
        note = NO_MACRO_NOTE.format(failure_class=FailureClass.PRECONDITION_MISMATCH, reason=NO_MACRO_REASON)
        self._decide(outcome, note, finish_id)

    def _decide(self, outcome: MacroOutcome, note: str, answers: str = "") -> None:
        """Classify a failure and let the policy's recovery decide: degrade to micro tools, or stop the run.

        The note goes to the agent as a harness message, or as the answer to the call ``answers``.
        """
        execution, machine = self.execution, self.machine
        execution.failure = outcome
        machine.fire(FAILURE_EVENT, outcome.failure_class or "")
        event = FailureEvent(
            failure_class=outcome.failure_class or "",
            side_effects=bool(outcome.changes),
            validation_failed=bool(outcome.validation_problems),
            changed_paths=len(outcome.changes.paths),
        )
        if not self.policy.recover(event):
            raise MacroFailureNotRecovered()
        if execution.macro_calls:
            execution.macro_made = self._changed_lines()
        machine.fire("degrade")
        if answers:
            execution.transcript.add_observation(answers, note)
        else:
            execution.transcript.add_note(note)
        execution.transcript.set_tools(_micro_schemas())
        machine.fire("switch_to_micro")
        execution.degraded = True


def _finish_refusal(call: ToolCall) -> str | None:
    """Why a ``finish`` call does not end the run: arguments its schema does not allow (``summary`` is all it takes)."""
    problem = argument_problem(MICRO_TOOLS[FINISH], call.arguments) if call.error is None else None
    return None if problem is None else f"{problem}; the task is not finished"


def _micro_step(call: ToolCall, state: State, ctx: ToolContext) -> str:
    tool = MICRO_TOOLS.get(call.name) if state is State.MICRO else None
    if tool is None:
        allowed = "micro tools" if state is State.MICRO else "macro skills"
        return f"error: '{call.name}' is not available; only {allowed} and finish can be called now"
    if call.error is not None:
        return f"error: the arguments of {call.name} are not a JSON object ({call.error}); nothing was done"
    return call_tool(tool, ctx, call.arguments).text


def _fallback(macros: MacroRegistry, name: str, args: dict[str, Any], tried: set[str]) -> str | None:
    """The declared fallback macro of ``name``, when it is registered, available, untried and fits the arguments."""
    macro = macros.get(name)
    fallback = macro.contract.get("fallback_skill") if macro else None
    if not fallback or fallback in tried or fallback not in macros or macros.unavailable(fallback):
        return None
    target = macros.get(fallback)
    return fallback if target is not None and first_error(target.parameters, args) is None else None


def _macro_offer(task: Task, ctx: ToolContext, macros: MacroRegistry, limits: Limits) -> Offer:
    """The macro phase's offer: retrieval's top ``k`` macros. With suggestions, every available macro's
    derivation is asked first, so the macros that suggest a call for this task are the ones offered (ahead
    of those retrieval only matches by words), each with its calls, in the order retrieval ranks them, so
    the first is the likeliest."""
    if limits.suggestions == OFF:
        return Offer(tuple(macros.offer(task.prompt, limits.retrieval_k)), {}, OFF, task.prompt)
    calls = suggested_calls(task.prompt, ctx.workspace.initial, macros.available(), task.hidden_paths)
    offered = {m.name for m in macros.offer(task.prompt, limits.retrieval_k, [n for n, c in calls.items() if c])}
    ranked = tuple(m for m in macros.ranked(task.prompt) if m.name in offered)
    kept = {name: c for name, c in calls.items() if name in offered}
    return Offer(ranked, kept, limits.suggestions, task.prompt, task.hidden_paths)


def _micro_schemas() -> list[dict[str, Any]]:
    return [t.schema() for t in MICRO_TOOLS.values()]
