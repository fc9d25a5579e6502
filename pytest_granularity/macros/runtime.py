"""Calling a macro under its contract, and classifying how it failed.

The order is the contract's: arguments against the parameters schema, preconditions (which
must not write), the ``early`` fault point, the macro's own work, the side effects it really
had compared with the declared ones, its own validation, the ``late`` fault point. Whatever
goes wrong lands in exactly one of the five failure classes, with the paths it changed, so the
recovery router and the agent can see what was left behind.

All of a call's macro code (preconditions, work, validation) runs in one child process per call,
asked for each part in turn and killed whole when a part runs past the timeout: a fork of this
process without a sandbox, a fresh sandboxed subprocess with one (see ``sandboxed``). The fault
points stay in this process either way, so faults fire at the same moments.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import GranularityError
from ..core.failures import FailureClass, Fault, InjectedFault
from ..core.schemas import first_error
from ..core.workspace import Changes, Snapshot, compare
from ..process.interrupts import kill_group, track_process, untrack_process
from .context import MacroContext, MacroError, Parts
from .contract import SIDE_EFFECT_KINDS, Macro
from .messages import RUN_TESTS, PipeMessage, answer_with_tests, message_of, tests_over
from .sandboxed import SandboxedMacro

_PAST = {"create": "created", "modify": "modified", "delete": "deleted"}

FaultPoint = Callable[[str, str, dict[str, Any], Path], None]
"""Called as ``point(name, macro_name, args, workspace_root)`` at ``early`` and ``late``; may raise."""


def no_faults(point: str, macro: str, args: dict[str, Any], root: Path) -> None:
    return None


class FaultOnce:
    """The fault point of a faulted benchmark run: ``InjectedFault`` at ``point`` on the run's first macro call
    only. It reads and writes nothing, so a call around it can be replayed exactly (``call_memo``)."""

    def __init__(self, point: str) -> None:
        self.point = point
        self.fired = False

    def __call__(self, point: str, macro: str, args: dict[str, Any], root: Path) -> None:
        if point == self.point and not self.fired:
            self.fired = True
            raise InjectedFault(f"injected {point} fault in {macro}")


@dataclass(frozen=True)
class MacroOutcome:
    """What one macro call did, as the executor needs it to decide: success, or exactly one failure class with its
    reason, and what the call changed, so a degraded run can tell the agent what it is left with."""

    macro: str
    failure_class: FailureClass | None
    reason: str
    changes: Changes = field(default_factory=Changes)
    validation_problems: tuple[str, ...] = ()
    violations: tuple[str, ...] = field(default=())
    injected: bool = False
    timed_out: bool = False
    outside_writes: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.failure_class is None

    def observation(self) -> str:
        changed = ", ".join(self.changes.paths) or "none"
        if self.ok:
            return f"{self.macro} succeeded: {self.reason}\nchanged paths: {changed}"
        return f"{self.macro} failed ({self.failure_class}): {self.reason}\nchanged paths: {changed}"


def invoke(macro: Macro, ctx: MacroContext, fault: FaultPoint = no_faults) -> MacroOutcome:
    """Run one macro call under its contract; never raises for anything the macro does."""
    started = time.monotonic()
    error = first_error(macro.parameters, ctx.args)
    if error is not None:
        return MacroOutcome(macro.name, FailureClass.PROTOCOL_FAILURE, f"invalid arguments ({error[0]}): {error[1]}")
    before = ctx.workspace.files()
    outcome = partial(concluded, macro, ctx, before, started)

    seconds = float(macro.contract["timeout_seconds"])
    parts: Parts = {
        "preconditions": _Reasons(macro.preconditions),
        "run": macro.run,
        "validate": _Reasons(macro.validate),
    }
    with start_macro_process(parts, ctx) as process:
        try:
            reasons = guarded_reasons("preconditions", process, seconds)
        except PartFailed as exc:
            return outcome(FailureClass.EXECUTOR_EXCEPTION, exc.reason, exc=exc.cause)
        if reasons:
            return outcome(FailureClass.PRECONDITION_MISMATCH, "; ".join(reasons))
        try:
            fault(Fault.EARLY, macro.name, ctx.args, ctx.root)
            summary = answer_of(process.ask("run", seconds), seconds)
        except MacroError as exc:
            failure = (
                FailureClass.PARTIAL_SIDE_EFFECT
                if compare(before, ctx.workspace.files())
                else FailureClass.PRECONDITION_MISMATCH
            )
            return outcome(failure, str(exc))
        except Exception as exc:
            return faulted(outcome, exc)
        if not isinstance(summary, str):
            name = summary.type_name if isinstance(summary, _NotText) else type(summary).__name__
            return outcome(FailureClass.PROTOCOL_FAILURE, f"the macro returned {name}, not a text summary")
        try:
            problems = guarded_reasons("validation", process, seconds, part="validate")
        except PartFailed as exc:
            return outcome(FailureClass.EXECUTOR_EXCEPTION, exc.reason, exc=exc.cause)
    if problems:
        return outcome(
            FailureClass.VALIDATION_FAILURE, "validation rejected the result: " + "; ".join(problems), problems
        )
    try:
        fault(Fault.LATE, macro.name, ctx.args, ctx.root)
    except Exception as exc:
        return faulted(outcome, exc)
    return outcome(None, summary)


def concluded(
    macro: Macro,
    ctx: MacroContext,
    before: Snapshot,
    started: float,
    failure: FailureClass | None,
    reason: str,
    problems: tuple[str, ...] = (),
    exc: BaseException | None = None,
) -> MacroOutcome:
    """How a call that started at ``started`` on the files ``before`` ended: what it changed since, against its
    contract, and what ``exc`` (the exception that ended it, if one did) says of it."""
    changes = compare(before, ctx.workspace.files())
    return MacroOutcome(
        macro.name,
        failure,
        reason,
        changes,
        problems,
        _violations(macro, ctx.args, changes),
        injected=isinstance(exc, InjectedFault),
        timed_out=isinstance(exc, MacroTimeout),
        outside_writes=(exc.path,) if isinstance(exc, OutsideWrite) else (),
        seconds=time.monotonic() - started,
    )


def faulted(outcome: Callable[..., MacroOutcome], exc: Exception) -> MacroOutcome:
    """The outcome of a call a fault point (or the macro's work) ended with ``exc``."""
    return outcome(FailureClass.EXECUTOR_EXCEPTION, f"{type(exc).__name__}: {exc}", exc=exc)


class MacroTimeout(GranularityError):
    """The macro ran past its contract's ``timeout_seconds`` and was stopped."""


class OutsideWrite(GranularityError):
    """The macro tried to write outside its workspace and the sandbox refused (the path is evidence)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the macro tried to write outside its workspace: {path} (refused: read-only in the sandbox)")
        self.path = path


class PartFailed(GranularityError):
    """A macro's preconditions or validation raised, hung, died or wrote outside: ``reason`` says which."""

    def __init__(self, reason: str, cause: BaseException | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause


def guarded_reasons(label: str, process: MacroProcess, seconds: float, part: str | None = None) -> tuple[str, ...]:
    """The reasons a macro's preconditions or validation give, asked of the call's macro process: the
    same guard as ``run`` (a process of its own, killed past the macro's timeout, in the sandbox when
    there is one).

    :class:`PartFailed` names the part (``label``) when it raised (in the words a direct call gave),
    ran past the timeout, died, or wrote outside the workspace.
    """
    try:
        answer = json.loads(answer_of(process.ask(part or label, seconds), seconds))
    except MacroTimeout as exc:
        raise PartFailed(f"{label} {exc}", exc) from None
    except (OutsideWrite, RuntimeError) as exc:
        raise PartFailed(f"{label} failed: {exc}", exc) from None
    if "raised" in answer:
        raise PartFailed(f"{label} raised {answer['raised']}")
    return tuple(answer["reasons"])


@dataclass(frozen=True)
class _Reasons:
    """A preconditions or validation function as a call that answers text (its reasons, or what it raised, as JSON),
    so it can run where ``run`` does; picklable by reference, for the sandboxed child."""

    function: Callable[[MacroContext], Any]

    def __call__(self, ctx: MacroContext) -> str:
        try:
            return json.dumps({"reasons": [str(reason) for reason in self.function(ctx)]})
        except OSError as exc:
            if exc.errno == errno.EROFS and exc.filename is not None:
                raise  # a write outside the workspace: message_of reports it as such
            return json.dumps({"raised": f"{type(exc).__name__}: {exc}"})
        except Exception as exc:
            return json.dumps({"raised": f"{type(exc).__name__}: {exc}"})


class MacroProcess(Protocol):
    """The process one macro call runs in: asked for each part in turn (``preconditions``, ``run``,
    ``validate``), so a call starts one process, sandboxed or not, whatever the parts do."""

    def ask(self, part: str, seconds: float) -> PipeMessage | None:
        """How ``part`` ended, or None past ``seconds`` (then the process has been killed)."""
        ...


@contextmanager
def start_macro_process(parts: Parts, ctx: MacroContext) -> Iterator[MacroProcess]:
    """A process of its own for one call's ``parts``, killed whole (with all it started) on leaving.

    A macro works on the filesystem, so its effects survive the process; its answers come back as
    plain text. Stopping a runaway macro needs a process of its own: a thread cannot be killed.
    """
    with (SandboxedMacro if ctx.sandbox.active else _ForkedMacro)(parts, ctx) as process:
        yield process


def answer_of(message: PipeMessage | None, seconds: float) -> Any:
    """A part's answer as its value (text), or the exception that says how it failed."""
    if message is None:
        raise MacroTimeout(f"stopped after its timeout of {seconds:g}s; the workspace is left as the macro left it")
    kind, value = message
    if kind == "macro_error":
        raise MacroError(value)
    if kind == "outside_write":
        raise OutsideWrite(value)
    if kind == "error":
        raise RuntimeError(value)
    return value if kind == "ok" else _NotText(value)


class _ForkedMacro:
    """Without a sandbox: a forked child in its own process group, answering parts over a pipe."""

    def __init__(self, parts: Parts, ctx: MacroContext) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, child_end = context.Pipe()

        def child() -> None:
            os.setsid()
            self.connection.close()
            runner = tests_over(lambda paths: child_end.send((RUN_TESTS, paths)), child_end.recv)
            here = dataclasses.replace(ctx, tests_runner=runner)
            while (part := child_end.recv()) is not None:
                child_end.send(message_of(parts[part], here))
            os._exit(0)

        self.ctx = ctx
        self.process = context.Process(target=child, daemon=True)
        self.process.start()
        assert self.process.pid is not None
        self.pid: int = self.process.pid
        track_process(self.pid)
        child_end.close()

    def ask(self, part: str, seconds: float) -> PipeMessage | None:
        try:
            self.connection.send(part)
            message = answer_with_tests(self._receive, self.connection.send, self.ctx, seconds)
        except (EOFError, BrokenPipeError):
            self.process.join()
            return "error", f"the macro's process died (exit code {self.process.exitcode})"
        if message is None:
            kill_group(self.pid)
        return message

    def _receive(self, seconds: float) -> PipeMessage | None:
        if not self.connection.poll(seconds):
            return None
        message: PipeMessage = self.connection.recv()
        return message

    def __enter__(self) -> _ForkedMacro:
        return self

    def __exit__(self, *exc: object) -> None:
        kill_group(self.pid)
        self.process.join()
        untrack_process(self.pid)
        self.connection.close()


@dataclass(frozen=True)
class _NotText:
    """A result that was not a text summary: reported as a protocol failure by ``invoke``."""

    type_name: str


def _violations(macro: Macro, args: dict[str, Any], changes: Changes) -> tuple[str, ...]:
    by_kind = dict(zip(SIDE_EFFECT_KINDS, (changes.created, changes.modified, changes.deleted)))
    return tuple(
        f"{macro.name} {_PAST[kind]} {path}, which its contract does not allow"
        for kind, paths in by_kind.items()
        for path in paths
        if not macro.allowed(kind, path, args)
    )
