"""Aggregate metrics over run results, with the exact definitions of DESIGN §2.

- success rate: runs the verifier accepted / runs;
- steps: tool calls per run, the final ``finish`` not counted; tokens: DESIGN §4;
- macro adoption rate: macro calls / all tool calls over a policy's runs;
- transition rate: runs that degraded macro→micro / runs that had a macro failure;
- G-score: success_rate / mean steps of successful runs / (mean tokens / micro's mean tokens
  on the same tasks).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from statistics import fmean
from typing import Iterable

from .result import ERROR, RunResult

POLICY_ORDER = ("micro", "macro", "hybrid", "heuristic", "learned")
FAULT_ORDER = ("none", "early", "late")


@dataclass(frozen=True)
class Summary:
    policy: str
    fault: str
    runs: int
    successes: int
    errors: int
    mean_steps: float
    mean_tokens: float
    mean_steps_successful: float | None
    macro_adoption: float
    transition_rate: float | None
    g_score: float | None
    failure_classes: dict[str, int] = field(default_factory=dict)

    @property
    def success_rate(self) -> float:
        return self.successes / self.runs if self.runs else 0.0


def g_score(success_rate: float, mean_steps_successful: float | None, mean_tokens: float, micro_mean_tokens: float | None) -> float | None:
    if not mean_steps_successful or not micro_mean_tokens or not mean_tokens:
        return None
    return success_rate / mean_steps_successful / (mean_tokens / micro_mean_tokens)


def summarize(results: Iterable[RunResult]) -> list[Summary]:
    """One summary per policy and fault, in a fixed order whatever order the runs came in."""
    groups: dict[tuple[str, str], list[RunResult]] = defaultdict(list)
    for r in sorted(results, key=lambda r: r.key):
        groups[(r.policy, r.fault)].append(r)
    micro_tokens = {r.task: r.tokens for r in groups.get(("micro", "none"), [])}
    return [_summarise(policy, fault, runs, micro_tokens) for (policy, fault), runs in sorted(groups.items(), key=_order)]


def _summarise(policy: str, fault: str, runs: list[RunResult], micro_tokens: dict[str, int]) -> Summary:
    successful = [r for r in runs if r.success]
    mean_tokens = fmean(r.tokens for r in runs)
    same_tasks = [micro_tokens[r.task] for r in runs if r.task in micro_tokens]
    micro_mean = fmean(same_tasks) if len(same_tasks) == len(runs) else None
    tool_calls = sum(r.tool_calls for r in runs)
    macro_failed = [r for r in runs if r.failure_class]
    steps_successful = fmean(r.steps for r in successful) if successful else None
    success_rate = len(successful) / len(runs)
    return Summary(
        policy=policy,
        fault=fault,
        runs=len(runs),
        successes=len(successful),
        errors=sum(r.outcome == ERROR for r in runs),
        mean_steps=fmean(r.steps for r in runs),
        mean_tokens=mean_tokens,
        mean_steps_successful=steps_successful,
        macro_adoption=sum(r.macro_calls for r in runs) / tool_calls if tool_calls else 0.0,
        transition_rate=sum(r.degraded for r in macro_failed) / len(macro_failed) if macro_failed else None,
        g_score=g_score(success_rate, steps_successful, mean_tokens, micro_mean),
        failure_classes=dict(sorted(Counter(r.failure_class for r in macro_failed).items())),
    )


def _order(item: tuple[tuple[str, str], list[RunResult]]) -> tuple[int, str, int]:
    policy, fault = item[0]
    rank = POLICY_ORDER.index(policy) if policy in POLICY_ORDER else len(POLICY_ORDER)
    return (rank, policy, FAULT_ORDER.index(fault) if fault in FAULT_ORDER else len(FAULT_ORDER))
