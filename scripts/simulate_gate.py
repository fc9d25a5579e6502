"""How often does the gate fail when nothing changed, and how often does it catch a real drop?

Each comparison draws a baseline and a current session from the stochastic agent's model
(``pytest_granularity.agents.stochastic.succeeds``: a run of a task succeeds with the task's
probability, independently per seed), builds the run records, and calls the gate's own
``compare`` on them, exactly as the plugin does at the end of a session. Tokens: each task has
its own cost (log-normal across tasks), every run varies by about 10% around it, and a run
that gives up costs a tenth of it.

    python scripts/simulate_gate.py                 # the table in docs/gate.md (a few minutes)
    python scripts/simulate_gate.py --comparisons 50  # quicker, rougher
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import sqrt

from pytest_granularity.agents.stochastic import succeeds
from pytest_granularity.core.result import Outcome, RunResult
from pytest_granularity.gate.baseline import Baseline, Thresholds, compare

Probabilities = Callable[[random.Random, int], list[float]]


@dataclass(frozen=True)
class Scenario:
    name: str
    tasks: int
    epochs: int
    before: Probabilities
    after: Probabilities
    changed: bool


def constant(p: float) -> Probabilities:
    return lambda rng, tasks: [p] * tasks


def mixed(rng: random.Random, tasks: int) -> list[float]:
    """Tasks of very different difficulty (mean about 0.86): where run-level statistics go wrong."""
    return [rng.choice((0.99, 0.99, 0.99, 0.9, 0.8, 0.5, 0.2)) for _ in range(tasks)]


def session(
    name: str, probabilities: list[float], costs: list[float], epochs: int, seed: int, rng: random.Random
) -> list[RunResult]:
    runs = []
    for index, (p, cost) in enumerate(zip(probabilities, costs)):
        task = f"{name}-task{index}"
        for epoch in range(epochs):
            success = succeeds(task, seed + epoch, p)
            tokens = round(cost * rng.lognormvariate(0, 0.1) * (1 if success else 0.1))
            runs.append(
                RunResult(
                    task=task,
                    family="sim",
                    policy="agent",
                    fault="none",
                    outcome=Outcome.PASSED if success else Outcome.FAILED,
                    mode="micro",
                    steps=5,
                    tokens=tokens,
                    prompt_tokens=tokens,
                    completion_tokens=0,
                    macro_calls=0,
                    epoch=epoch,
                    seed=seed + epoch,
                )
            )
    return runs


def gate_fails(scenario: Scenario, index: int, thresholds: Thresholds) -> bool:
    rng = random.Random(f"{scenario.name}|{index}")
    name = f"c{index}"
    costs = [rng.lognormvariate(9, 1) for _ in range(scenario.tasks)]
    task_rng = random.Random(f"tasks|{scenario.name}|{index}")
    before = scenario.before(task_rng, scenario.tasks)
    after = scenario.after(task_rng, scenario.tasks) if scenario.changed else before
    baseline = Baseline.from_results(session(name, before, costs, scenario.epochs, 0, rng))
    current = session(name, after, costs, scenario.epochs, 1000, rng)
    return compare(baseline, current, thresholds).failed


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


SCENARIOS = (
    Scenario("unchanged, p = 0.9", 80, 5, constant(0.9), constant(0.9), False),
    Scenario("unchanged, mixed p", 80, 5, mixed, mixed, False),
    Scenario("drop 0.9 -> 0.7", 80, 5, constant(0.9), constant(0.7), True),
)
CHOOSING_N = tuple(
    Scenario(f"drop 0.9 -> {after}, N = {n}", 80, n, constant(0.9), constant(after), True)
    for after in (0.8, 0.7)
    for n in (2, 3, 5, 10)
)
ONE_EPOCH = Scenario("unchanged, p = 0.9, N = 1 (exact gate)", 80, 1, constant(0.9), constant(0.9), False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--comparisons", type=int, default=400, help="comparisons per scenario (default 400)")
    parser.add_argument(
        "--choosing", type=int, default=100, help="comparisons per scenario of the choosing-N table (default 100)"
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    thresholds = Thresholds(alpha=args.alpha)
    print(f"alpha = {args.alpha}; every comparison: 80 tasks, the gate's compare() on synthesized run records\n")
    print("| scenario | tasks x epochs | comparisons | gate failed | rate | 95% CI | seconds per comparison |")
    print("|---|---|---|---|---|---|---|")
    plan = [(s, args.comparisons) for s in SCENARIOS] + [(ONE_EPOCH, 50)] + [(s, args.choosing) for s in CHOOSING_N]
    for scenario, count in plan:
        start = time.perf_counter()
        failed = sum(gate_fails(scenario, i, thresholds) for i in range(count))
        seconds = (time.perf_counter() - start) / count
        low, high = wilson(failed, count)
        kind = "detection" if scenario.changed else "false alarm"
        print(
            f"| {scenario.name} ({kind}) | {scenario.tasks} x {scenario.epochs} | {count} | {failed} | "
            f"{failed / count:.3f} | [{low:.3f}, {high:.3f}] | {seconds:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
