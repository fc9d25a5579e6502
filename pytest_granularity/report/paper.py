"""The paper's pilot tables beside ours, as ratios, so shapes compare where absolute tokens cannot.

The paper ran a real model on 12 (faults: 7) small tasks; we run the deterministic reference
agent on 80 tasks in real projects. Absolute tokens differ by design; ratios such as "macro
tokens / micro tokens" or "full controller tokens / no-recovery tokens" say whether the shapes
agree. Ours are the held-out numbers ``granularity train`` computes (both schemes).
"""

from __future__ import annotations

from typing import Any

from ..core.failures import NO_FAULT

PAPER = {
    "micro|none": (1.000, 7217.75, None),
    "macro|none": (0.583, 3609.00, None),
    "heuristic|none": (0.750, 4097.67, None),
    "learned|none": (1.000, 5518.33, None),
    "no recovery|early": (0.000, None, 0.000),
    "always degrade|early": (1.000, 11293.43, 1.000),
    "learned recovery|early": (1.000, 9763.57, 0.857),
    "no recovery|late": (1.000, 2280.00, 0.000),
    "always degrade|late": (1.000, 7566.71, 1.000),
    "learned recovery|late": (1.000, 3694.43, 0.143),
}
"""(success, mean tokens, transition rate) per ``policy|fault``, from the paper's tables
(docs/routing.md, "beside the paper")."""

SUCCESS = (
    "macro|none",
    "heuristic|none",
    "learned|none",
    "no recovery|early",
    "learned recovery|early",
    "learned recovery|late",
)
RATIOS = (
    ("macro|none", "micro|none"),
    ("heuristic|none", "micro|none"),
    ("learned|none", "micro|none"),
    ("learned|none", "heuristic|none"),
    ("learned recovery|early", "always degrade|early"),
    ("always degrade|late", "no recovery|late"),
    ("learned recovery|late", "no recovery|late"),
    ("learned recovery|late", "always degrade|late"),
)
TRANSITIONS = ("learned recovery|early", "learned recovery|late")


def _label(key: str) -> str:
    name, fault = key.split("|")
    name = "full controller" if name == "learned recovery" else name
    return name if fault == NO_FAULT else f"{name} ({fault} fault)"


def _ours(evaluation: dict[str, Any], key: str, field: str) -> float | None:
    score = evaluation["policies"].get(key)
    return None if score is None else score[field]


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.3f}"


def _value(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def comparison(evaluations: dict[str, dict[str, Any]]) -> str:
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
