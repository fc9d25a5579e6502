"""What a real model did in its runs, beside the table: how the runs ended and how it replied.

A weak model fails in ways the main table's failure classes do not show (it answers in prose,
runs out of steps, fills its context), so a report of model runs says, per policy, how the runs
stopped, how many replies called no tool (each answered with a nudge), how many were cut at the
completion cap, how many tool results were cut so that a request fitted the context, and which
servers answered (their ``system_fingerprint``: for the bundled
model, the model file's hash and the settings it was served with). Everything comes from the
run records, so a replayed session reports exactly what the recorded one did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.result import RunResult

HEADERS = ("policy", "runs", "model calls", "no tool call", "cut at cap", "results cut to fit", "stop reasons")


@dataclass(frozen=True)
class ModelRuns:
    policy: str
    runs: int
    model_calls: int
    without_call: int
    cut_off: int
    cut_observations: int
    """Tool results replaced by a note so that a request fits the model's context window."""
    stop_reasons: dict[str, int]


def model_runs(results: Sequence[RunResult]) -> list[ModelRuns]:
    """One row per policy over the runs that asked a model; none when no run did."""
    by_policy: dict[str, list[RunResult]] = {}
    for result in results:
        if result.model_calls:
            by_policy.setdefault(result.policy, []).append(result)
    return [_row(policy, runs) for policy, runs in sorted(by_policy.items())]


def _row(policy: str, runs: list[RunResult]) -> ModelRuns:
    responses = [call.get("response") or {} for run in runs for call in run.model_calls]
    choices = [(r.get("choices") or [{}])[0] for r in responses]
    return ModelRuns(
        policy=policy,
        runs=len(runs),
        model_calls=len(responses),
        without_call=sum(not (c.get("message") or {}).get("tool_calls") for c in choices),
        cut_off=sum(c.get("finish_reason") == "length" for c in choices),
        cut_observations=sum(
            int((call.get("request") or {}).get("cut_observations") or 0) for run in runs for call in run.model_calls
        ),
        stop_reasons=dict(sorted(Counter(run.stop_reason for run in runs).items())),
    )


def fingerprints(results: Sequence[RunResult]) -> list[str]:
    """The servers that answered, as they named themselves."""
    seen = {
        str(call["response"]["system_fingerprint"])
        for result in results
        for call in result.model_calls
        if isinstance(call.get("response"), dict) and call["response"].get("system_fingerprint")
    }
    return sorted(seen)


def rows(summaries: Sequence[ModelRuns]) -> list[tuple[str, ...]]:
    return [
        (
            s.policy,
            str(s.runs),
            str(s.model_calls),
            str(s.without_call),
            str(s.cut_off),
            str(s.cut_observations),
            ", ".join(f"{reason}={count}" for reason, count in s.stop_reasons.items()),
        )
        for s in summaries
    ]
