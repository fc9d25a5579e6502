"""The paper's pilot tables beside ours, as ratios, so shapes compare where absolute tokens cannot.

The paper ran a real model on 12 (faults: 7) small tasks; we run the deterministic reference
agent on 80 tasks in real projects. Absolute tokens differ by design; ratios such as "macro
tokens / micro tokens" or "full controller tokens / no-recovery tokens" say whether the shapes
agree. Ours are the held-out numbers ``granularity train`` computes (both schemes).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.failures import Fault
from ..core.modes import PolicyName
from ..gate.held_out import HeldOut, Recovery, Route

PAPER = {
    Route(PolicyName.MICRO, Fault.NONE): (1.000, 7217.75, None),
    Route(PolicyName.MACRO, Fault.NONE): (0.583, 3609.00, None),
    Route(PolicyName.HEURISTIC, Fault.NONE): (0.750, 4097.67, None),
    Route(PolicyName.LEARNED, Fault.NONE): (1.000, 5518.33, None),
    Route(Recovery.NEVER, Fault.EARLY): (0.000, None, 0.000),
    Route(Recovery.ALWAYS, Fault.EARLY): (1.000, 11293.43, 1.000),
    Route(Recovery.LEARNED, Fault.EARLY): (1.000, 9763.57, 0.857),
    Route(Recovery.NEVER, Fault.LATE): (1.000, 2280.00, 0.000),
    Route(Recovery.ALWAYS, Fault.LATE): (1.000, 7566.71, 1.000),
    Route(Recovery.LEARNED, Fault.LATE): (1.000, 3694.43, 0.143),
}
"""(success, mean tokens, transition rate) per route, from the paper's tables
(docs/routing.md, "beside the paper")."""

SUCCESS = (
    Route(PolicyName.MACRO, Fault.NONE),
    Route(PolicyName.HEURISTIC, Fault.NONE),
    Route(PolicyName.LEARNED, Fault.NONE),
    Route(Recovery.NEVER, Fault.EARLY),
    Route(Recovery.LEARNED, Fault.EARLY),
    Route(Recovery.LEARNED, Fault.LATE),
)
RATIOS = (
    (Route(PolicyName.MACRO, Fault.NONE), Route(PolicyName.MICRO, Fault.NONE)),
    (Route(PolicyName.HEURISTIC, Fault.NONE), Route(PolicyName.MICRO, Fault.NONE)),
    (Route(PolicyName.LEARNED, Fault.NONE), Route(PolicyName.MICRO, Fault.NONE)),
    (Route(PolicyName.LEARNED, Fault.NONE), Route(PolicyName.HEURISTIC, Fault.NONE)),
    (Route(Recovery.LEARNED, Fault.EARLY), Route(Recovery.ALWAYS, Fault.EARLY)),
    (Route(Recovery.ALWAYS, Fault.LATE), Route(Recovery.NEVER, Fault.LATE)),
    (Route(Recovery.LEARNED, Fault.LATE), Route(Recovery.NEVER, Fault.LATE)),
    (Route(Recovery.LEARNED, Fault.LATE), Route(Recovery.ALWAYS, Fault.LATE)),
)
TRANSITIONS = (Route(Recovery.LEARNED, Fault.EARLY), Route(Recovery.LEARNED, Fault.LATE))


def _label(route: Route) -> str:
    name = "full controller" if route.policy == Recovery.LEARNED else route.policy
    return name if route.fault == Fault.NONE else f"{name} ({route.fault} fault)"


def _ours(evaluation: HeldOut, route: Route, field: str) -> float | None:
    score = evaluation.scores.get(route)
    value: float | None = None if score is None else getattr(score, field)
    return value


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.3f}"


def _value(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def comparison(evaluations: Mapping[str, HeldOut]) -> str:
    """A markdown table: each quantity, the paper's value, ours held out by task and by family."""
    schemes = [s for s in ("kfold", "family") if s in evaluations]
    heads = {"kfold": "ours, 5-fold by task", "family": "ours, family held out"}
    lines = ["| quantity | paper | " + " | ".join(heads[s] for s in schemes) + " |", "|---" * (2 + len(schemes)) + "|"]

    def row(quantity: str, paper: str, ours: list[str]) -> None:
        lines.append(f"| {quantity} | {paper} | " + " | ".join(ours) + " |")

    for key in SUCCESS:
        row(
            f"success: {_label(key)}",
            _value(PAPER[key][0]),
            [_value(_ours(evaluations[s], key, "success_rate")) for s in schemes],
        )
    for top, bottom in RATIOS:
        paper = _ratio(PAPER[top][1], PAPER[bottom][1])
        ours = [
            _ratio(_ours(evaluations[s], top, "mean_tokens"), _ours(evaluations[s], bottom, "mean_tokens"))
            for s in schemes
        ]
        row(f"tokens: {_label(top)} / {_label(bottom)}", paper, ours)
    for key in TRANSITIONS:
        row(
            f"transition rate: {_label(key)}",
            _value(PAPER[key][2]),
            [_value(_ours(evaluations[s], key, "transition_rate")) for s in schemes],
        )
    return "\n".join(lines)
