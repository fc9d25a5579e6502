"""The agent protocol, the agent boundary, and the agents: reference, model-backed, stubs.

Stands on ``core`` only.

The executor drives any object with ``next_call``: given the messages so far and the tools
allowed now, return the next tool call (a :class:`ToolCall`), or a whole :class:`Reply` (text,
any number of tool calls, the provider's usage). The deterministic reference agent and a
real-model adapter are interchangeable behind it, so tokens are counted the same way for both.

The boundary hides the answer: a factory is given an :class:`AgentSetup` holding a
:class:`TaskView` (the task's id, its prompt and the tests ``run_tests`` runs), never the
reference solution, the verifier or the reference macro call. Only a factory that declares
``uses_oracle = True`` (the reference agent, a stand-in for a model that knows the answer) is
also handed the :class:`Oracle`, through a field of its own.

An agent reports what went wrong by raising: :class:`ContextLengthExceeded` ends the run as
failed (the model's limit is part of the benchmark), :class:`InfrastructureError` as an error
(a key, a network, a server: not the agent's doing); any other exception is an error too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.errors import GranularityError
from ..core.tasks import Task
from ..core.transcript import Message, Reply, ToolCall


class Agent(Protocol):
    """What the executor drives: one method, so any model, a scripted reference or an agent host fits behind it.

    ``next_call`` sees the conversation so far and the tools offered now (they change when a run degrades
    to micro tools) and answers with one tool call, or a :class:`Reply` carrying text, several calls and the
    provider's usage. It never sees the workspace: every effect goes through a tool, so the executor can
    count, check and bill it.
    """

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolCall | Reply: ...


@dataclass(frozen=True)
class TaskView:
    """What any agent may know of a task before it starts: what a model is told, and no more."""

    id: str
    prompt: str
    tests: tuple[str, ...] = ()


@dataclass(frozen=True)
class Oracle:
    """The answer: the whole task (solution, reference macro call) and the initial workspace, and the macro calls
    that make pieces of its change, each fitting once those before it are made (``run/piece_calls.py``)."""

    task: Task
    initial: Mapping[str, bytes]
    pieces: tuple[tuple[str, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class AgentSetup:
    """What a factory gets for one run; ``seed`` is the run's own (``--granularity-seed`` plus the
    epoch, so repeated runs of a nondeterministic agent differ)."""

    task: TaskView
    seed: int = 0
    oracle: Oracle | None = None


AgentFactory = Callable[[AgentSetup], Agent]
"""Builds an agent for one run. ``oracle`` is filled only for factories with ``uses_oracle = True``."""


def setup_for(
    factory: AgentFactory,
    task: Task,
    initial: Mapping[str, bytes],
    seed: int = 0,
    pieces: Callable[[], Sequence[tuple[str, dict[str, Any]]]] | None = None,
) -> AgentSetup:
    """What ``factory`` gets for one run; the oracle (with ``pieces()``, asked only then) only for a factory that
    uses it."""
    view = TaskView(task.id, task.prompt, task.tests)
    oracle = Oracle(task, dict(initial), tuple(pieces() if pieces else ())) if uses_oracle(factory) else None
    return AgentSetup(view, seed, oracle)


def uses_oracle(factory: AgentFactory) -> bool:
    return bool(getattr(factory, "uses_oracle", False))


class AgentError(GranularityError):
    """An agent could not produce its next call."""


class InfrastructureError(AgentError):
    """The model could not be reached or refused the request (key, network, server, a replay miss)."""


class ContextLengthExceeded(AgentError):
    """The conversation no longer fits the model's context window: the run fails, as the model's limit."""


def as_reply(answer: ToolCall | Reply) -> Reply:
    return answer if isinstance(answer, Reply) else Reply(calls=(answer,))
