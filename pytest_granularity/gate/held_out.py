"""The held-out evaluation's result (``routing.training.evaluate``), typed: a score per routing choice and fault.

``router.json`` and the tables keep the flat form ``{"scheme": ..., "policies": {"POLICY|FAULT": {...}}}``
(``HeldOut.to_dict``), so a router written before reads the same.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from .metrics import Interval


class Recovery(StrEnum):
    """The recovery choices compared on faulted runs of tasks whose macro fits: the paper's baselines and ours."""

    NEVER = "no recovery"
    ALWAYS = "always degrade"
    LEARNED = "learned recovery"


@dataclass(frozen=True)
class Route:
    """A row of the held-out tables: a routing policy (or a recovery choice such as ``no recovery``) under a fault."""

    policy: str
    fault: str

    @property
    def label(self) -> str:
        """The row's key in ``router.json``."""
        return f"{self.policy}|{self.fault}"


@dataclass(frozen=True)
class RouteScore:
    """A route's held-out runs: success and tokens with bootstrap intervals, and how it compares with the oracle."""

    runs: int
    success_rate: float
    success_ci: Interval
    mean_tokens: float
    tokens_ci: Interval
    oracle_gap: float | None
    transition_rate: float | None
    agreement: float | None
    """How often the route's mode matched the task's label (routing policies without a fault only)."""


@dataclass(frozen=True)
class HeldOut:
    """Every route's score when each task is routed by a router trained without its fold (``scheme``)."""

    scheme: str
    scores: dict[Route, RouteScore]
    """In the order of the routes' labels."""

    def get(self, policy: str, fault: str) -> RouteScore | None:
        return self.scores.get(Route(policy, fault))

    def to_dict(self) -> dict[str, Any]:
        return {"scheme": self.scheme, "policies": {route.label: asdict(score) for route, score in self.scores.items()}}
