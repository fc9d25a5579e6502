"""pytest-granularity: skill granularity as a runtime decision, benchmarked and gated in pytest.

The public API: what an agent, a macro or a plugin needs, importable from the package itself
(``from pytest_granularity import ToolCall``). Every name in ``__all__`` is supported; anything
imported from a submodule is not. ``docs/extending.md`` walks through a plugin built on it.

- Agents: :class:`Agent` (the protocol the executor drives), :data:`AgentFactory` (what
  ``pytest_granularity_agents`` registers), :class:`AgentSetup` and the :class:`TaskView` a
  factory is given, :class:`Oracle` (only for ``uses_oracle`` factories), and the errors an agent
  raises (:class:`AgentError`, :class:`InfrastructureError`, :class:`ContextLengthExceeded`).
- Conversation: :class:`ToolCall`, :class:`Reply`, :class:`Usage`, :class:`Message`.
- Policies: :class:`Policy` (what ``pytest_granularity_policies`` registers), the :class:`Mode` it routes to
  (:data:`MICRO` and :data:`MACRO` are its members), and the :class:`FailureEvent` its recovery sees.
- Macros: :class:`MacroContext` (what a macro's functions are given), :class:`MacroOutcome`,
  :class:`MacroError`, and the :class:`MacroRegistry` a policy may route on.
- Runs: :class:`RunResult`, the record of one run (``pytest_granularity_run_finished``).
- Hooks: :mod:`~pytest_granularity.hookspecs`, every hook with an example.

Importing the package stays cheap (pytest imports it at startup through the plugin entry
point): each name is imported from its module on first use. ``docs/api.md`` says what each is for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core import __version__ as __version__

_HOMES = {
    "Agent": "agents",
    "AgentError": "agents",
    "AgentFactory": "agents",
    "AgentSetup": "agents",
    "ContextLengthExceeded": "agents",
    "InfrastructureError": "agents",
    "Oracle": "agents",
    "TaskView": "agents",
    "Message": "core.transcript",
    "Reply": "core.transcript",
    "ToolCall": "core.transcript",
    "Usage": "core.transcript",
    "MACRO": "core.modes",
    "MICRO": "core.modes",
    "Mode": "core.modes",
    "FailureEvent": "run.policies",
    "Policy": "run.policies",
    "MacroContext": "macros",
    "MacroError": "macros",
    "MacroOutcome": "macros",
    "MacroRegistry": "macros",
    "RunResult": "core.result",
}

__all__ = [
    "MACRO",
    "MICRO",
    "Agent",
    "AgentError",
    "AgentFactory",
    "AgentSetup",
    "ContextLengthExceeded",
    "FailureEvent",
    "InfrastructureError",
    "MacroContext",
    "MacroError",
    "MacroOutcome",
    "MacroRegistry",
    "Message",
    "Mode",
    "Oracle",
    "Policy",
    "Reply",
    "RunResult",
    "TaskView",
    "ToolCall",
    "Usage",
    "hookspecs",
]

if TYPE_CHECKING:
    from . import hookspecs
    from .agents import (
        Agent,
        AgentError,
        AgentFactory,
        AgentSetup,
        ContextLengthExceeded,
        InfrastructureError,
        Oracle,
        TaskView,
    )
    from .core.modes import MACRO, MICRO, Mode
    from .core.result import RunResult
    from .core.transcript import Message, Reply, ToolCall, Usage
    from .macros import MacroContext, MacroError, MacroOutcome, MacroRegistry
    from .run.policies import FailureEvent, Policy


def __getattr__(name: str) -> Any:
    if name == "hookspecs":
        return importlib.import_module(f"{__name__}.hookspecs")
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
