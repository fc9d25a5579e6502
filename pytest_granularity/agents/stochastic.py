"""A seeded stochastic agent, to prove the gate's statistics on runs whose noise is known.

It plays the reference agent, except that with probability ``1 - p`` (``p`` set per task by
whoever builds it) it gives up at once and finishes, which the verifier rejects. The draw
depends only on the task and the run's seed, so a run is reproducible and the epochs of a
task (seeds ``S + k``) are independent draws: exactly the model behind a real agent's
success fraction. ``scripts/simulate_gate.py`` draws from the same ``succeeds``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.tools import FINISH
from ..core.transcript import Message, ToolCall
from . import AgentFactory, AgentSetup
from .reference import ReferenceAgent


def succeeds(task: str, seed: int, probability: float) -> bool:
    """This run's draw: True with ``probability``, the same for the same task and seed."""
    return random.Random(f"{task}|{seed}").random() < probability


class StochasticAgent:
    uses_oracle = True

    def __init__(self, setup: AgentSetup, probability: float) -> None:
        self.gives_up = not succeeds(setup.task.id, setup.seed, probability)
        self.reference = ReferenceAgent(setup)

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolCall:
        if self.gives_up:
            return ToolCall(FINISH, {})
        return self.reference.next_call(messages, tools)


def stochastic_agent(probabilities: Mapping[str, float], default: float = 1.0) -> AgentFactory:
    """A factory for ``pytest_granularity_agents``: task id → success probability (else ``default``)."""

    def build(setup: AgentSetup) -> StochasticAgent:
        return StochasticAgent(setup, probabilities.get(setup.task.id, default))

    build.uses_oracle = True  # type: ignore[attr-defined]
    return build
