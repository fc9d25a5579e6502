"""What options, ini keys, plugins and ``conftest.py`` files add to a run: macros, the agent, policies.

One function, :func:`resolve`, turns a configured ``pytest.Config`` into the macro registry, the
selected policies and the agent factory, asking the registration hooks (``hookspecs``) on the way.
The pytest plugin calls it; keeping it apart from the plugin lets anything holding a config
(the ``granularity`` command, a test) see exactly what a test run in that rootdir sees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from ..agents import AgentFactory
from ..core.modes import PolicyName
from ..core.schemas import DefinitionError
from ..macros import MacroRegistry
from ..run.policies import RECOVERY_OVERRIDES, Policy
from .options import named, setting, whole_number

T = TypeVar("T")


@dataclass(frozen=True)
class Extensions:
    """The macros a run may call, the policies it runs (in the order given) and the agent that drives it."""

    macros: MacroRegistry
    policies: tuple[Policy, ...]
    agent: AgentFactory


def resolve(config: pytest.Config) -> Extensions:
    """The extensions of a ``--granularity`` session; a bad name or definition is a ``pytest.UsageError``."""
    macros = macro_registry(config)
    return Extensions(macros, selected_policies(config, macros), agent_factory(config))


def macro_roots(config: pytest.Config, folders: Sequence[Path] = ()) -> list[Path]:
    """Extra macro folders: ``folders`` or else the option (or else the ini key), then what plugins register.

    ``folders`` are the ``granularity`` command's ``--macros``, which take the option's place.
    """
    roots: list[Path] = list(folders)
    if not roots:
        option = config.getoption("--granularity-macros")
        ini = config.getini("granularity_macros")
        if option:
            roots.append(Path(option))
        elif ini:
            roots.append(config.rootpath / ini)
    for found in config.hook.pytest_granularity_macro_folders(config=config):
        roots.extend(Path(f) for f in found)
    return roots


def macro_registry(config: pytest.Config) -> MacroRegistry:
    """The built-in macros and those of :func:`macro_roots`, with the session's circuit breaker."""
    breaker = whole_number(config, "breaker")
    try:
        return MacroRegistry.load(macro_roots(config), breaker=breaker)
    except DefinitionError as exc:
        raise pytest.UsageError(f"bad macro definition: {exc}") from None


BUILTIN = "pytest-granularity"
"""The owner named when a plugin registers an agent or a policy under a built-in name."""


def agents(config: pytest.Config) -> dict[str, AgentFactory]:
    """The built-in agents and those plugins register (``pytest_granularity_agents``), by name."""
    from ..agents.first_suggestion import FirstSuggestion
    from ..agents.reference import ReferenceAgent

    return _by_name(
        "agent",
        [
            (BUILTIN, {"reference": ReferenceAgent, "first-suggestion": FirstSuggestion}),
            *((plugin, dict(found)) for plugin, found in _answers(config, "agents")),
        ],
    )


def agent_factory(config: pytest.Config) -> AgentFactory:
    """The factory ``--granularity-agent`` (or the ini key) names, among :func:`agents`."""
    known = agents(config)
    name = setting(config, named("agent"))
    if name not in known:
        raise pytest.UsageError(f"--granularity-agent: unknown agent '{name}'; known: {', '.join(sorted(known))}")
    return known[name]


def registered_policies(config: pytest.Config, macros: MacroRegistry) -> dict[str, Policy]:
    """The policies plugins register (``pytest_granularity_policies``), by name; built-in names are taken."""
    answers = _answers(config, "policies", macros=macros)
    found = _by_name(
        "policy",
        [(BUILTIN, dict.fromkeys(PolicyName)), *((plugin, {p.name: p for p in ps}) for plugin, ps in answers)],
    )
    return {name: policy for name, policy in found.items() if policy is not None}


def selected_policies(config: pytest.Config, macros: MacroRegistry) -> tuple[Policy, ...]:
    """The policies ``--granularity`` names, each once, with ``--granularity-recovery`` applied."""
    registered = registered_policies(config, macros)
    known = [*PolicyName, *registered]
    names = [n.strip() for n in config.getoption("--granularity").split(",") if n.strip()]
    if not names:
        raise pytest.UsageError(f"--granularity: no policy named; choose from {', '.join(known)} or all")
    if "all" in names:
        names = known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise pytest.UsageError(
            f"--granularity: unknown policy {', '.join(unknown)}; choose from {', '.join(known)} or all"
        )
    policies = [registered[n] if n in registered else _policy(config, n, macros) for n in dict.fromkeys(names)]
    override = config.getoption("--granularity-recovery")
    if override:
        policies = [
            dataclasses.replace(
                p,
                name=f"{p.name}@{override}",
                recover=RECOVERY_OVERRIDES[override],
                hands_over=p.hands_over and override != "never",
            )
            if p.uses_macros
            else p
            for p in policies
        ]
    return tuple(policies)


def _answers(config: pytest.Config, hook: str, **kwargs: Any) -> list[tuple[str, Any]]:
    """Each plugin's answer to ``pytest_granularity_<hook>``, with the plugin's name, in pluggy's call order.

    Called one implementation at a time (not through the hook caller) so a clash can name the
    plugins on both sides; a conftest's name is its path.
    """
    caller = getattr(config.hook, f"pytest_granularity_{hook}")
    arguments = {"config": config, **kwargs}
    answers = []
    for impl in reversed(caller.get_hookimpls()):
        if impl.hookwrapper or impl.wrapper:
            continue
        answer = impl.function(*(arguments[name] for name in impl.argnames))
        if answer is not None:
            answers.append((impl.plugin_name, answer))
    return answers


def _by_name(kind: str, registrations: list[tuple[str, dict[str, T]]]) -> dict[str, T]:
    """The registrations merged into one mapping; a name two owners register is a usage error."""
    merged: dict[str, T] = {}
    owners: dict[str, str] = {}
    for owner, found in registrations:
        for name, value in found.items():
            if name in owners:
                raise pytest.UsageError(f"{kind} '{name}' is registered by both {owners[name]} and {owner}")
            owners[name] = owner
            merged[name] = value
    return merged


def _policy(config: pytest.Config, name: str, macros: MacroRegistry) -> Policy:
    from ..routing.routers import RouterError, policy_named

    try:
        return policy_named(
            name, Path(config.getoption("--granularity-router") or config.rootpath / "router.json"), macros
        )
    except RouterError as exc:
        raise pytest.UsageError(
            f"--granularity=learned: {exc} (train one with 'granularity train', or pass --granularity-router)"
        ) from None
