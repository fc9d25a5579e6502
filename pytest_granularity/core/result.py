"""The record of one run: what the executor did, what it cost, and what the verifier said.

Plain data that travels through ``user_properties`` (junitxml, pytest-xdist) as JSON, so every
field is a JSON type or a record of them (the macro log's entries) and ``from_dict(to_dict(r)) == r``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from .failures import FailureClass, Fault

RECORD_KEY = "granularity_run"
"""The name under which a run's record travels in a test report's ``user_properties``."""
IDENTITY_KEY = "granularity_identity"
"""The name under which a run's identity travels, from its setup on, in a test report's ``user_properties``."""


class Outcome(StrEnum):
    """What the verifier said of a run (``error``: the run never got to be judged)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    UNVERIFIED = "unverified"
    """A task served over MCP: no verifier judges it, so it never counts as a success."""


class StopReason(StrEnum):
    """Why a run ended: a run record's ``stop_reason``."""

    FINISHED = "finished"
    STEP_LIMIT = "step_limit"
    MACRO_FAILED = "macro_failed"
    TOKEN_LIMIT = "token_limit"
    CONTEXT_LENGTH = "context_length"
    INFRASTRUCTURE = "infrastructure"
    AGENT_EXCEPTION = "agent_exception"
    LOST = "lost"
    """The run's xdist worker was lost before its record arrived."""
    SESSION_CLOSED = "session_closed"
    """The MCP client closed the session before the task was finished."""


class TokenSource(StrEnum):
    """Whose figures ``tokens``, ``prompt_tokens`` and ``completion_tokens`` are: the local cl100k count
    (docs/architecture.md, "Tokens") or, when the agent reported the provider's usage and that source was chosen, the
    provider's. ``local_tokens`` always keeps the local count; ``provider_*`` the provider's."""

    LOCAL = "local"
    PROVIDER = "provider"


@dataclass(frozen=True)
class MacroLogEntry:
    """One macro call of a run, in the order of the calls: a run record's ``macro_log`` lists them."""

    macro: str
    failure_class: FailureClass | None
    """None when the call succeeded."""
    seconds: float
    """Wall-clock latency, rounded to 0.1 ms: the one field that varies run to run."""


@dataclass(frozen=True)
class RunIdentity:
    """Which run a test item is, known before it runs.

    Put in the item's ``user_properties`` at setup, so the setup report already carries it: a run
    whose record never arrives (its xdist worker crashed, which yields a report with nothing but
    the node id) is still known by the identity of that node's setup, without parsing node ids.
    """

    task: str
    family: str
    policy: str
    fault: str
    epoch: int = 0

    def to_property(self) -> tuple[str, str]:
        return IDENTITY_KEY, json.dumps(asdict(self), sort_keys=True)


def identity_in(user_properties: Iterable[tuple[str, object]]) -> RunIdentity | None:
    """The identity a test report carries (none for a test that is not a benchmark run)."""
    for name, value in user_properties:
        if name == IDENTITY_KEY:
            return RunIdentity(**json.loads(str(value)))
    return None


@dataclass(frozen=True)
class RunResult:
    """One run's record: the unit every report, baseline, summary and router is computed from.

    Plain JSON-typed data (the module docstring says why); ``pytest_granularity_run_finished`` hands it to plugins,
    and the report's ``.jsonl`` holds one per line.
    """

    task: str
    family: str
    policy: str
    fault: str
    outcome: Outcome
    mode: str
    steps: int
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    tool_calls: int = field(init=False)
    """``steps`` under the name the record format and its schema carry: set from it, never given, so the two cannot
    disagree (every step is a tool call or a reply without one, and both count)."""
    macro_calls: int
    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    stop_reason: str = ""
    failure_class: FailureClass | None = None
    degraded: bool = False
    transitions: list[str] = field(default_factory=list)
    contract_violations: list[str] = field(default_factory=list)
    macro_log: list[MacroLogEntry] = field(default_factory=list)
    verifier_output: str = ""
    diff: str = ""
    macro_lines: list[list[str]] = field(default_factory=list)
    """The final change's lines that macro calls wrote, as ``[file, "+" or "-", line]``."""
    macro_coverage: float | None = None
    """Macro coverage: the share of the task's reference change (its changed lines) that macro calls wrote; None
    where the reference change has no text lines, or the run never got to an execution."""
    error: str | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    epoch: int = 0
    seed: int = 0
    provider_prompt_tokens: int | None = None
    provider_completion_tokens: int | None = None
    provider_cached_tokens: int | None = None
    token_source: TokenSource = TokenSource.LOCAL
    local_tokens: int | None = None
    cost: float | None = None
    notes: list[str] = field(default_factory=list)
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict, compare=False)
    """Seconds of wall time by phase, and pytest's own test time (``core.phases``). Varies run to run,
    like a macro call's latency, so two records of the same run compare equal without it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", self.steps)

    @classmethod
    def infrastructure_error(
        cls,
        *,
        task: str,
        family: str,
        policy: str,
        fault: str,
        stop_reason: str,
        error: str,
        epoch: int = 0,
        seed: int = 0,
    ) -> RunResult:
        """A run that never got to an execution (no workspace, no agent, a lost xdist worker).

        It is kept as an error row rather than dropped, so the table still counts the run and
        says that the infrastructure, not the agent, failed it; it did nothing and cost nothing.
        """
        return cls(
            task=task,
            family=family,
            policy=policy,
            fault=fault,
            outcome=Outcome.ERROR,
            mode="",
            steps=0,
            tokens=0,
            prompt_tokens=0,
            completion_tokens=0,
            macro_calls=0,
            stop_reason=stop_reason,
            error=error,
            epoch=epoch,
            seed=seed,
        )

    @property
    def success(self) -> bool:
        return self.outcome == Outcome.PASSED

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.task, self.policy, self.fault)

    @property
    def run_key(self) -> tuple[str, str, str, int]:
        """One run: with ``--granularity-epochs`` a (task, policy, fault) cell holds several."""
        return (*self.key, self.epoch)

    @property
    def transcript_length(self) -> int:
        return len(self.transcript)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_property(self) -> tuple[str, str]:
        """The record as a ``user_properties`` entry; :func:`records_in` reads it back."""
        return RECORD_KEY, json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        names = {f.name for f in fields(cls) if f.init}
        known = {k: v for k, v in data.items() if k in names}
        known["macro_log"] = [MacroLogEntry(**entry) for entry in known.get("macro_log", [])]
        return cls(**known)

    def summary(self) -> str:
        fault = "" if self.fault == Fault.NONE else f" fault={self.fault}"
        fault += f" epoch={self.epoch}" if self.epoch else ""
        failure = f" failure={self.failure_class}" if self.failure_class else ""
        return (
            f"{self.task} policy={self.policy}{fault}: {self.outcome}, {self.steps} steps, "
            f"{self.tokens} tokens ({self.stop_reason}){failure}"
        )


def records_in(user_properties: Iterable[tuple[str, object]]) -> list[RunResult]:
    """The run records a test report carries (none for a test that is not a benchmark run)."""
    return [RunResult.from_dict(json.loads(str(value))) for name, value in user_properties if name == RECORD_KEY]
