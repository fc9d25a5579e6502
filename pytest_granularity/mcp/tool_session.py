"""Granularity control for an outside agent: tasks routed, offered and recovered as in a benchmark run.

An MCP client (Claude Code, Cursor, a team's own agent) is the agent. ``start_task`` routes the
prompt with the chosen policy from pre-execution evidence and starts an executor ``Run``; every
later call is one step of that run, so it passes the same state machine, tool argument
validation, path-escape refusal, macro contracts, failure classes, circuit breaker and recovery
decision as a benchmark run; given a verifier (``served_verifier``), a task that finishes is judged as a
benchmark run is, else its outcome is ``unverified``. The tools offered are the run's own tool list, and a call to any
other tool is refused here, whatever list the client still holds (a tools-changed notification
may not reach it). Every call lands in the audit log. MCP's wire format is ``mcp_server``'s job.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from ..core.audit import RUN_EVENT, AuditLog
from ..core.defaults import DEFAULT_TOP_K
from ..core.failures import Fault
from ..core.result import Outcome, StopReason
from ..core.schemas import first_error
from ..core.tasks import Task
from ..core.tools import DEFAULT_TEST_TIMEOUT, MICRO_TOOLS
from ..core.transcript import ToolCall
from ..core.workspace import Workspace, overlay
from ..macros import Macro, MacroRegistry
from ..macros.runtime import FaultPoint, no_faults
from ..process.sandbox import NO_SANDBOX, Sandbox
from ..process.tool_context import ToolContext
from ..routing.explain import explain_routing
from ..routing.routers import Router, features_of
from ..run.executor import Execution, Limits, Run, RunEnded
from ..run.policies import FIXED_POLICIES, Policy
from ..run.runner import judged, run_record
from ..verifier.served_verifier import ServedVerifier
from .export import START_TASK, START_TASK_TOOL, macro_tool, micro_tool

FAMILY = "mcp"
DEFAULT_MAX_STEPS = 100
MAX_ARGUMENTS_BYTES = 2**20
"""A call's arguments as JSON: a real step's are kilobytes. Past this the call is refused before it is run, routed,
audited or kept: a prompt, a file or an edit of a megabyte is not an agent's step, and would fill the log."""
ENDINGS: dict[str, str] = {
    StopReason.FINISHED: "finished",
    StopReason.MACRO_FAILED: (
        "stopped after a {failure} failure: policy {policy} does not recover; the workspace is left as it is"
    ),
    StopReason.STEP_LIMIT: "stopped at the step limit of {limit} calls; that call was not run",
    StopReason.SESSION_CLOSED: "stopped: the client closed the session",
}


class SessionClosed(RunEnded):
    """The client closed the session with a task in progress: its run ends where it is, outside the machine."""

    reason = StopReason.SESSION_CLOSED
    event = None


@dataclass(frozen=True)
class ToolReply:
    """What an MCP tool call answers: the text the client reads, whether it is an error, and whether the tool list
    changed (not the public ``Reply``, which is a model's answer to the executor)."""

    text: str
    is_error: bool = False
    tools_changed: bool = False


@dataclass(frozen=True)
class ServeSettings:
    policy: Policy
    macros: MacroRegistry
    router: Router | None = None
    router_path: Path | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    retrieval_k: int = DEFAULT_TOP_K
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    fault: FaultPoint = no_faults
    sandbox: Sandbox = NO_SANDBOX
    """Where ``run_tests`` and the macros' work run (``--sandbox``): the agent's code, as in a benchmark run."""
    verifier: ServedVerifier | None = None
    """What judges a task that finishes (``--verify-tests``, ``--verify-command``); without one it is unverified."""


class ToolSession:
    """One agent's session on one workspace: a task at a time, each a ``Run`` of the executor."""

    def __init__(self, root: Path, settings: ServeSettings, audit: AuditLog, session_id: str) -> None:
        self.root = root
        self.settings = settings
        self.audit = audit
        self.session_id = session_id
        self.run: Run | None = None
        self.task: Task | None = None
        self.closed = False
        self._tasks = 0
        self._lock = threading.Lock()

    def offered(self) -> list[str]:
        """The names of the tools that may be called now: ``start_task`` between tasks, else the run's tool list."""
        if self.run is None:
            return [START_TASK]
        return [schema["function"]["name"] for schema in self.run.transcript.tools]

    def tools(self) -> list[dict[str, Any]]:
        """The MCP definitions of the tools offered now."""
        if self.run is None:
            return [START_TASK_TOOL]
        return [
            micro_tool(MICRO_TOOLS[name]) if name in MICRO_TOOLS else macro_tool(self._macro(name))
            for name in self.offered()
        ]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolReply:
        """Answer one tool call; refuse any tool not offered now. One call at a time, never after ``close``."""
        with self._lock:
            if self.closed:
                return ToolReply("error: the session is closed", is_error=True)
            return self._answer(name, arguments)

    def close(self) -> None:
        """After the call in progress: end the open task, if any, so its run record is written; close the log."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self.run is not None:
                self.run.end(SessionClosed())
                self._end()
            self.audit.close()

    def _answer(self, name: str, arguments: dict[str, Any]) -> ToolReply:
        size = len(json.dumps(arguments))
        if size > MAX_ARGUMENTS_BYTES:
            text = (
                f"error: the arguments of {name} are {size} bytes of JSON, more than the limit of {MAX_ARGUMENTS_BYTES}"
            )
            self.audit.write("refused", task=self.task.id if self.task else None, tool=name, size=size, result=text)
            return ToolReply(text, is_error=True)
        before = self.offered()
        if name not in before:
            state = self.run.machine.state.value if self.run else "no task"
            text = f"error: '{name}' is not offered now ({state}); the tools offered now are: {', '.join(before)}"
            self.audit.write(
                "refused", task=self.task.id if self.task else None, tool=name, arguments=arguments, result=text
            )
            return ToolReply(text, is_error=True)
        reply = self._start(arguments) if name == START_TASK else self._step(name, arguments)
        after = self.offered()
        if after == before:
            return reply
        return replace(reply, text=f"{reply.text}\n\ntools offered now: {', '.join(after)}", tools_changed=True)

    def _start(self, arguments: dict[str, Any]) -> ToolReply:
        error = first_error(START_TASK_TOOL["inputSchema"], arguments)
        if error is not None:
            return ToolReply(f"error: invalid arguments for {START_TASK} ({error[0]}): {error[1]}", is_error=True)
        self._tasks += 1
        settings = self.settings
        task = served_task(f"{self.session_id}-{self._tasks}", arguments["prompt"], self.root, settings.max_steps)
        ctx = ToolContext(Workspace(self.root), (), settings.test_timeout, settings.sandbox)
        verifier = (
            partial(settings.verifier.judge, task, ctx.workspace, settings.sandbox) if settings.verifier else None
        )
        run = Run.start(
            task,
            settings.policy,
            ctx,
            settings.macros,
            Limits(settings.max_steps, settings.retrieval_k),
            settings.fault,
            verifier,
        )
        self.run, self.task = run, task
        mode = run.execution.mode
        why = self._why(task, ctx.workspace, mode)
        self.audit.write(
            "start_task",
            task=task.id,
            prompt=task.prompt,
            policy=settings.policy.name,
            mode=mode,
            why=why,
            offered=self.offered(),
            transitions=list(run.machine.log),
        )
        return ToolReply(f"task {task.id} starts in {mode} mode (policy {settings.policy.name}).\nwhy:\n{why}")

    def _why(self, task: Task, workspace: Workspace, mode: str) -> str:
        if self.settings.policy.name in FIXED_POLICIES:
            return f"policy {self.settings.policy.name} is fixed: every task starts in {mode} mode"
        features = features_of(task, workspace, self.settings.macros)
        return explain_routing(features, self.settings.router, self.settings.router_path)

    def _macro(self, name: str) -> Macro:
        macro = self.settings.macros.get(name)
        assert macro is not None, f"{name} is in the run's tool list, so it is registered"
        return macro

    def _step(self, name: str, arguments: dict[str, Any]) -> ToolReply:
        run = self.run
        assert run is not None and self.task is not None
        execution = run.execution
        messages, failure, transitions = len(run.transcript.messages), execution.failure, len(run.machine.log)
        run.step(ToolCall(name, arguments))
        text = "\n\n".join(m.content for m in run.transcript.messages[messages + 1 :])
        is_error = execution.failure is not failure or text.startswith("error:")
        self.audit.write(
            "call",
            task=self.task.id,
            tool=name,
            arguments=arguments,
            is_error=is_error,
            result=text,
            state=run.machine.state.value,
            transitions=run.machine.log[transitions:],
            offered=self.offered(),
            step=execution.steps,
        )
        if run.ended:
            text = "\n\n".join(part for part in (text, self._end()) if part)
        return ToolReply(text, is_error=is_error)

    def _end(self) -> str:
        """Write the run record of the task in progress and return to ``start_task``; says how the task ended."""
        run, task = self.run, self.task
        assert run is not None and task is not None
        execution = run.execution
        record = run_record(task, self.settings.policy, Fault.NONE, execution, *self._judged(execution))
        self.audit.write(RUN_EVENT, task=task.id, record=record.to_dict())
        self.run = self.task = None
        failure = execution.failure.failure_class if execution.failure else None
        ending = ENDINGS[execution.stop_reason].format(
            policy=self.settings.policy.name, limit=self.settings.max_steps, failure=failure
        )
        degraded = ", degraded to micro tools" if execution.degraded else ""
        changed = ", ".join(execution.changes.paths) or "none"
        verdict = self._verdict(record.outcome, record.verifier_output, record.error)
        return (
            f"task {task.id} {ending}. {execution.steps} calls ({execution.macro_calls} to macros)"
            f"{degraded}; changed paths: {changed}. {verdict}Call {START_TASK} for the next one."
        )

    def _judged(self, execution: Execution) -> tuple[Outcome, str, str | None]:
        """Outcome, verifier output and error: a benchmark run's, given a verifier, except for a task the
        client never handed in (the session closed); without a verifier, unverified."""
        if self.settings.verifier is None or execution.stop_reason == StopReason.SESSION_CLOSED:
            return Outcome.UNVERIFIED, "", None
        return judged(execution)

    def _verdict(self, outcome: str, output: str, error: str | None) -> str:
        verifier = self.settings.verifier
        if verifier is None:
            return "No verifier judges a served task. "
        if outcome == Outcome.UNVERIFIED:
            return "It was not verified. "
        reason = error or (output.splitlines()[0] if outcome == Outcome.FAILED and output else "")
        return f"Verifier ({verifier.description}): {outcome}{f' ({reason})' if reason else ''}. "


def served_task(task_id: str, prompt: str, root: Path, max_steps: int) -> Task:
    """A task for a prompt on the served workspace. It has no task file, reference or faults, and no verifier of
    its own (the server's, if any, judges it: ``served_verifier``): those fields name the null device, never the
    workspace."""
    nothing = Path(os.devnull)
    return Task(
        id=task_id,
        family=FAMILY,
        prompt=prompt,
        path=nothing,
        fixture=root,
        fixture_ref=None,
        setup=None,
        solution_overlay=None,
        solution_delete=(),
        verifier_tests=nothing,
        verifier_timeout=0.0,
        tests=(),
        macro=None,
        faults=(),
        max_steps=max_steps,
    )


def new_session_id() -> str:
    """Unique across sessions (the start time and a random suffix), so logs of several sessions can be merged."""
    return f"mcp-{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


def default_audit_path(session_id: str) -> Path:
    """Outside any workspace, so the log's own lines never show up as changes to the served repository."""
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return state / "pytest-granularity" / "mcp" / f"{session_id}.jsonl"


@contextmanager
def served_root(path: Path, copy: bool) -> Iterator[Path]:
    """The workspace to serve: ``path`` itself (in place: the user's repository is changed, deliberately),
    or with ``copy`` a throw-away copy of it (caches and ``.git`` left out) that is removed at the end."""
    if not copy:
        yield path
        return
    root = Path(tempfile.mkdtemp(prefix="granularity-mcp-")).resolve()
    try:
        overlay(root, path)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
