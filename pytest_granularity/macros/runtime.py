"""Calling a macro under its contract, and classifying how it failed.

The order is the contract's: arguments against the parameters schema, preconditions (which
must not write), the ``early`` fault point, the macro's own work, the side effects it really
had compared with the declared ones, its own validation, the ``late`` fault point. Whatever
goes wrong lands in exactly one of the five failure classes, with the paths it changed, so the
recovery router and the agent can see what was left behind.

The macro's work runs in a child process killed whole past its timeout: a fork of this process
without a sandbox, a fresh sandboxed subprocess with one (see ``sandboxed``). The fault points
stay in this process either way, so faults fire at the same moments.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..failures import (
    EXECUTOR_EXCEPTION,
    PARTIAL_SIDE_EFFECT,
    PRECONDITION_MISMATCH,
    PROTOCOL_FAILURE,
    VALIDATION_FAILURE,
    InjectedFault,
)
from ..interrupts import kill_group, track_process, untrack_process
from ..pytest_process import PytestRun, run_pytest
from ..sandbox import NO_SANDBOX, Sandbox
from ..schemas import first_error
from ..workspace import Changes, Workspace, compare
from .contract import SIDE_EFFECT_KINDS, Macro
from .sandboxed import Message, call_in_sandbox

_PAST = {"create": "created", "modify": "modified", "delete": "deleted"}

FaultPoint = Callable[[str, str, dict[str, Any], Path], None]
"""Called as ``point(name, macro_name, args, workspace_root)`` at ``early`` and ``late``; may raise."""


def no_faults(point: str, macro: str, args: dict[str, Any], root: Path) -> None:
    return None


class MacroError(Exception):
    """Raised by a macro that finds, while acting, that it cannot finish the job."""


@dataclass(frozen=True)
class MacroContext:
    """What a macro's functions are given: the workspace, the call's arguments, a test runner,
    the macros it declared in ``depends_on``, and the sandbox its work and tests run in."""

    workspace: Workspace
    args: dict[str, Any]
    tests: tuple[str, ...] = ()
    test_timeout: float = 120.0
    dependencies: dict[str, Any] = field(default_factory=dict)
    sandbox: Sandbox = NO_SANDBOX

    def call_dependency(self, name: str, args: dict[str, Any]) -> str:
        """Run a declared dependency's preconditions and work in this workspace; its refusal is a MacroError."""
        macro = self.dependencies.get(name)
        if macro is None:
            raise MacroError(f"'{name}' is not among this macro's declared dependencies")
        context = MacroContext(self.workspace, dict(args), self.tests, self.test_timeout, sandbox=self.sandbox)
        reasons = list(macro.preconditions(context))
        if reasons:
            raise MacroError(f"dependency {name} does not fit: {'; '.join(reasons)}")
        return str(macro.run(context))

    @property
    def root(self) -> Path:
        return self.workspace.root

    def path(self, rel: str) -> Path:
        return self.workspace.resolve(rel)

    def run_tests(self, paths: list[str] | None = None) -> PytestRun:
        return run_pytest(
            self.root, list(paths or self.args.get("tests") or self.tests), self.test_timeout, sandbox=self.sandbox
        )


@dataclass(frozen=True)
class MacroOutcome:
    macro: str
    failure_class: str | None
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
        return MacroOutcome(macro.name, PROTOCOL_FAILURE, f"invalid arguments ({error[0]}): {error[1]}")
    before = ctx.workspace.files()

    def outcome(
        failure: str | None, reason: str, problems: tuple[str, ...] = (), exc: BaseException | None = None
    ) -> MacroOutcome:
        changes = compare(before, ctx.workspace.files())
        violations = _violations(macro, ctx.args, changes)
        return MacroOutcome(
            macro.name,
            failure,
            reason,
            changes,
            problems,
            violations,
            injected=isinstance(exc, InjectedFault),
            timed_out=isinstance(exc, MacroTimeout),
            outside_writes=(exc.path,) if isinstance(exc, OutsideWrite) else (),
            seconds=time.monotonic() - started,
        )

    try:
        reasons = list(macro.preconditions(ctx))
    except Exception as exc:
        return outcome(EXECUTOR_EXCEPTION, f"preconditions raised {type(exc).__name__}: {exc}")
    if reasons:
        return outcome(PRECONDITION_MISMATCH, "; ".join(reasons))
    try:
        fault("early", macro.name, ctx.args, ctx.root)
        summary = call_with_timeout(macro.run, ctx, float(macro.contract["timeout_seconds"]))
    except MacroError as exc:
        failure = PARTIAL_SIDE_EFFECT if compare(before, ctx.workspace.files()) else PRECONDITION_MISMATCH
        return outcome(failure, str(exc))
    except Exception as exc:
        return outcome(EXECUTOR_EXCEPTION, f"{type(exc).__name__}: {exc}", exc=exc)
    if not isinstance(summary, str):
        name = summary.type_name if isinstance(summary, _NotText) else type(summary).__name__
        return outcome(PROTOCOL_FAILURE, f"the macro returned {name}, not a text summary")
    try:
        problems = tuple(macro.validate(ctx))
    except Exception as exc:
        return outcome(EXECUTOR_EXCEPTION, f"validation raised {type(exc).__name__}: {exc}")
    if problems:
        return outcome(VALIDATION_FAILURE, "validation rejected the result: " + "; ".join(problems), problems)
    try:
        fault("late", macro.name, ctx.args, ctx.root)
    except Exception as exc:
        return outcome(EXECUTOR_EXCEPTION, f"{type(exc).__name__}: {exc}", exc=exc)
    return outcome(None, summary)


class MacroTimeout(Exception):
    """The macro ran past its contract's ``timeout_seconds`` and was stopped."""


class OutsideWrite(Exception):
    """The macro tried to write outside its workspace and the sandbox refused (the path is evidence)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the macro tried to write outside its workspace: {path} (refused: read-only in the sandbox)")
        self.path = path


def call_with_timeout(function: Callable[[MacroContext], Any], ctx: MacroContext, seconds: float) -> Any:
    """Run ``function(ctx)`` in a child process of its own, killed whole (with everything it started) past ``seconds``.

    A macro works on the filesystem, so its effects survive the child; its result comes back
    as plain text. Stopping a runaway macro needs a process of its own: a thread cannot be killed.
    """
    message = (call_in_sandbox if ctx.sandbox.active else _call_in_fork)(function, ctx, seconds)
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


def message_of(function: Callable[[MacroContext], Any], ctx: MacroContext) -> Message:
    """Call ``function(ctx)`` and say how it ended, as text that can leave the child process."""
    try:
        value = function(ctx)
        return ("ok", value) if isinstance(value, str) else ("not_text", type(value).__name__)
    except MacroError as exc:
        return ("macro_error", str(exc))
    except OSError as exc:
        if exc.errno == errno.EROFS and exc.filename is not None:
            return ("outside_write", os.path.abspath(os.fsdecode(exc.filename)))
        return ("error", f"{type(exc).__name__}: {exc}")
    except BaseException as exc:
        return ("error", f"{type(exc).__name__}: {exc}")


def _call_in_fork(function: Callable[[MacroContext], Any], ctx: MacroContext, seconds: float) -> Message | None:
    """Without a sandbox: a forked child in its own process group; None when it timed out."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        os.setsid()
        writer.send(message_of(function, ctx))
        os._exit(0)

    process = context.Process(target=child, daemon=True)
    process.start()
    assert process.pid is not None
    track_process(process.pid)
    writer.close()
    try:
        if not reader.poll(seconds):
            return None
        message: Message = reader.recv()
        return message
    except EOFError:
        return "error", f"the macro's process died (exit code {process.exitcode})"
    finally:
        kill_group(process.pid)
        process.join()
        untrack_process(process.pid)
        reader.close()


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
