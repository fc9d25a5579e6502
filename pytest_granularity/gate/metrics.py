"""Aggregate metrics over run results, with the exact definitions docs/report.md gives ("The terminal").

- success rate: runs the verifier accepted / runs, with a 95% percentile-bootstrap interval;
- steps: tool calls per run, the final ``finish`` not counted; tokens: as docs/architecture.md counts them;
- macro adoption rate: macro calls / all tool calls over a policy's runs;
- transition rate: runs that degraded macro→micro / runs that had a macro failure;
- G-score: success_rate / mean steps of successful runs / (mean tokens / micro's mean tokens
  on the same tasks);
- oracle gap: mean tokens / the oracle's mean tokens on the same tasks and faults, where the
  oracle of a task is its cheapest successful run among the fixed policies (a ``micro`` run
  counts for every fault: it never calls a macro, so no fault can reach it).

Bootstrap intervals are seeded from the group's name, so the same runs give the same interval
in any order, serially or under xdist. With ``--granularity-epochs`` a task's runs are not
independent: intervals resample tasks (a cluster bootstrap), each with all of its epochs, and
``epoch_summaries`` adds per-task success fractions, pass@k, pass^k and the token spread.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb, floor
from statistics import fmean, median, stdev

import numpy

from ..compat import twister_words
from ..core.failures import Fault
from ..core.modes import FIXED, PolicyName
from ..core.phases import PHASES, TESTS
from ..core.result import MacroLogEntry, Outcome, RunResult

POLICY_ORDER = tuple(PolicyName)
FAULT_ORDER = tuple(Fault)
ALL_FAMILIES = "all"
ALL_POLICIES = "all"
"""The row of a phase table that sums every policy."""
RESAMPLES = 2000
CONFIDENCE = 0.95

Interval = tuple[float, float]


@dataclass(frozen=True)
class Summary:
    policy: str
    fault: str
    family: str
    runs: int
    successes: int
    errors: int
    success_ci: Interval
    mean_steps: float
    median_steps: float
    mean_tokens: float
    median_tokens: float
    mean_steps_successful: float | None
    macro_adoption: float
    transition_rate: float | None
    g_score: float | None
    oracle_gap: float | None
    failure_classes: dict[str, int] = field(default_factory=dict)
    macro_coverage: float | None = None
    """Mean macro coverage (the share of a task's reference change that macro calls wrote) over the runs that
    have one."""
    mean_cost: float | None = None
    """Mean US dollars per run, over the runs priced (``granularity_prices``); None when none was."""
    verified: bool = True
    """False for a row of served tasks that no verifier judged (``unverified``): kept out of the judged rows, so
    they count neither as successes nor as failures there; their steps, tokens and failure classes are measured."""

    @property
    def success_rate(self) -> float:
        return self.successes / self.runs if self.runs else 0.0


@dataclass(frozen=True)
class PairedDifference:
    """Policy ``a`` minus policy ``b`` on the tasks both ran with the same fault."""

    fault: str
    a: str
    b: str
    tasks: int
    success_diff: float
    success_ci: Interval
    tokens_diff: float
    tokens_ci: Interval


@dataclass(frozen=True)
class EpochSummary:
    """A policy and fault over repeated runs: how reliably each task succeeds, and at what cost.

    ``epochs`` is the fewest runs any task had (pass@k is defined up to it); intervals are
    cluster-bootstrap intervals over tasks; ``tokens_within_sd`` is the mean over tasks of the
    standard deviation of a task's tokens across its runs (the agent's own noise).
    """

    policy: str
    fault: str
    tasks: int
    epochs: int
    runs: int
    success_rate: float
    success_ci: Interval
    always: int
    never: int
    pass_at_k: dict[str, float]
    pass_hat_k: dict[str, float]
    mean_tokens: float
    tokens_ci: Interval
    tokens_within_sd: float
    task_success: dict[str, float]


def pass_at_k(runs: int, successes: int, k: int) -> float:
    """Unbiased estimate of P(at least one of k runs succeeds) from n runs, c successes (Chen et al. 2021)."""
    return 1 - comb(runs - successes, k) / comb(runs, k)


def pass_hat_k(runs: int, successes: int, k: int) -> float:
    """Unbiased estimate of P(all k of k runs succeed) from n runs, c successes."""
    return comb(successes, k) / comb(runs, k)


def g_score(
    success_rate: float, mean_steps_successful: float | None, mean_tokens: float, micro_mean_tokens: float | None
) -> float | None:
    if not mean_steps_successful or not micro_mean_tokens or not mean_tokens:
        return None
    return success_rate / mean_steps_successful / (mean_tokens / micro_mean_tokens)


def bootstrap_ci(values: Sequence[float], seed: str, statistic: Callable[[Sequence[float]], float] = fmean) -> Interval:
    """A percentile bootstrap interval of ``statistic``, reproducible from ``seed``."""
    if len(values) < 2:
        value = statistic(values) if values else 0.0
        return (value, value)
    return _percentiles([statistic(drawn) for drawn in _picked(values, _draws(seed, len(values)))])


def cluster_bootstrap_ci(clusters: Sequence[Sequence[float]], seed: str) -> Interval:
    """A percentile bootstrap interval of the mean over all values, resampling whole clusters.

    With one value per cluster this is exactly ``bootstrap_ci`` of the values (same draws).
    """
    if len(clusters) < 2:
        value = fmean([v for c in clusters for v in c]) if clusters else 0.0
        return (value, value)
    draws = _draws(seed, len(clusters))
    sums, sizes = _picked([sum(c) for c in clusters], draws), _picked([len(c) for c in clusters], draws)
    return _percentiles([sum(total) / sum(size) for total, size in zip(sums, sizes)])


def _draws(seed: str, size: int) -> numpy.ndarray:
    """The indices ``random.Random(crc32(seed)).choices(population, k=size)`` draws, ``RESAMPLES`` times one
    after another (the intervals published so far came from it), drawn at numpy's speed: numpy's legacy
    Mersenne Twister, given the same state, yields the same doubles as ``random.random``, and a pick is
    ``floor(random() * size)`` in both."""
    generator = random.Random(zlib.crc32(seed.encode()))
    state = twister_words(generator)
    if state is None:
        picks = [[floor(generator.random() * size) for _ in range(size)] for _ in range(RESAMPLES)]
        return numpy.array(picks, dtype=numpy.intp).reshape(RESAMPLES, size)
    twister = numpy.random.RandomState()
    twister.set_state(("MT19937", numpy.array(state[0], dtype=numpy.uint32), state[1], 0, 0.0))
    return numpy.floor(twister.random_sample((RESAMPLES, size)) * float(size)).astype(numpy.intp)


def _picked(population: Sequence[float], draws: numpy.ndarray) -> list[list[float]]:
    """Each resample as a list of the population's own items in the drawn order: a statistic sums exactly
    what it summed of ``choices``'s list."""
    items = numpy.empty(len(population), dtype=object)
    items[:] = population
    resamples: list[list[float]] = items[draws].tolist()
    return resamples


def _percentiles(estimates: list[float]) -> Interval:
    estimates.sort()
    tail = (1 - CONFIDENCE) / 2
    return (estimates[int(tail * RESAMPLES)], estimates[int((1 - tail) * RESAMPLES) - 1])


def by_task(runs: Iterable[RunResult]) -> dict[str, list[RunResult]]:
    """A group's runs per task (its epochs), in task order."""
    tasks: dict[str, list[RunResult]] = defaultdict(list)
    for r in sorted(runs, key=lambda r: r.run_key):
        tasks[r.task].append(r)
    return dict(tasks)


def oracle_tokens(results: Iterable[RunResult]) -> dict[tuple[str, str], int]:
    """Per (task, fault): the fewest tokens of a successful run among the fixed policies."""
    runs = [r for r in results if r.policy in FIXED and r.success]
    faults = {r.fault for r in results} | {Fault.NONE}
    best: dict[tuple[str, str], int] = {}
    for r in runs:
        for fault in faults if r.policy == PolicyName.MICRO else (r.fault,):
            key = (r.task, fault)
            best[key] = min(best.get(key, r.tokens), r.tokens)
    return best


def summarize(results: Iterable[RunResult], by_family: bool = False) -> list[Summary]:
    """One summary per policy and fault (and family), in a fixed order whatever order the runs came in."""
    ordered = sorted(results, key=lambda r: r.run_key)
    groups: dict[tuple[str, str, str, bool], list[RunResult]] = defaultdict(list)
    for r in ordered:
        verified = r.outcome != Outcome.UNVERIFIED
        groups[(r.policy, r.fault, ALL_FAMILIES, verified)].append(r)
        if by_family:
            groups[(r.policy, r.fault, r.family, verified)].append(r)
    micro_tokens = {
        task: fmean(r.tokens for r in runs)
        for task, runs in by_task(r for r in ordered if r.policy == PolicyName.MICRO and r.fault == Fault.NONE).items()
    }
    oracle = oracle_tokens(ordered)
    return [_summarise(key, runs, micro_tokens, oracle) for key, runs in sorted(groups.items(), key=_order)]


def _summarise(
    key: tuple[str, str, str, bool],
    runs: list[RunResult],
    micro_tokens: dict[str, float],
    oracle: dict[tuple[str, str], int],
) -> Summary:
    policy, fault, family, verified = key
    seed = "|".join((policy, fault, family)) + ("" if verified else "|unverified")
    successful = [r for r in runs if r.success]
    tokens = [float(r.tokens) for r in runs]
    mean_tokens = fmean(tokens)
    same_tasks = [micro_tokens[r.task] for r in runs if r.task in micro_tokens]
    calls = sum(r.steps for r in runs)
    macro_failed = [r for r in runs if r.failure_class]
    steps_successful = fmean(r.steps for r in successful) if successful else None
    success_rate = len(successful) / len(runs)
    return Summary(
        policy=policy,
        fault=fault,
        family=family,
        runs=len(runs),
        successes=len(successful),
        errors=sum(r.outcome == Outcome.ERROR for r in runs),
        success_ci=cluster_bootstrap_ci(
            [[float(r.success) for r in epochs] for epochs in by_task(runs).values()], seed
        ),
        mean_steps=fmean(r.steps for r in runs),
        median_steps=float(median(r.steps for r in runs)),
        mean_tokens=mean_tokens,
        median_tokens=float(median(tokens)),
        mean_steps_successful=steps_successful,
        macro_adoption=sum(r.macro_calls for r in runs) / calls if calls else 0.0,
        transition_rate=sum(r.degraded for r in macro_failed) / len(macro_failed) if macro_failed else None,
        g_score=g_score(
            success_rate, steps_successful, mean_tokens, fmean(same_tasks) if len(same_tasks) == len(runs) else None
        ),
        oracle_gap=_oracle_gap(runs, oracle),
        failure_classes=dict(sorted(Counter(c for r in macro_failed if (c := r.failure_class)).items())),
        macro_coverage=_mean_or_none([r.macro_coverage for r in runs]),
        mean_cost=_mean_or_none([r.cost for r in runs]),
        verified=verified,
    )


def _mean_or_none(values: Sequence[float | None]) -> float | None:
    """The mean of the values there are; None when there are none."""
    known = [v for v in values if v is not None]
    return fmean(known) if known else None


def _oracle_gap(runs: list[RunResult], oracle: dict[tuple[str, str], int]) -> float | None:
    """None where no run has an oracle, or the oracle used no tokens (an agent whose provider reports none)."""
    matched = [(r.tokens, oracle[(r.task, r.fault)]) for r in runs if (r.task, r.fault) in oracle]
    if not matched or not (cheapest := fmean(o for _, o in matched)):
        return None
    return fmean(t for t, _ in matched) / cheapest


def epoch_summaries(results: Iterable[RunResult]) -> list[EpochSummary]:
    """One per policy and fault where some task ran more than once; empty for single runs."""
    groups: dict[tuple[str, str], list[RunResult]] = defaultdict(list)
    for r in results:
        groups[(r.policy, r.fault)].append(r)
    summaries = []
    for (policy, fault), runs in sorted(
        groups.items(), key=lambda item: (_policy_rank(item[0][0]), _fault_rank(item[0][1]))
    ):
        tasks = by_task(runs)
        if max(map(len, tasks.values())) > 1:
            summaries.append(_epoch_summary(policy, fault, tasks))
    return summaries


def _epoch_summary(policy: str, fault: str, tasks: dict[str, list[RunResult]]) -> EpochSummary:
    counts = [(len(runs), sum(r.success for r in runs)) for runs in tasks.values()]
    epochs = min(n for n, _ in counts)
    seed = f"{policy}|{fault}|epochs"
    tokens = [[float(r.tokens) for r in runs] for runs in tasks.values()]
    return EpochSummary(
        policy=policy,
        fault=fault,
        tasks=len(tasks),
        epochs=epochs,
        runs=sum(n for n, _ in counts),
        success_rate=sum(c for _, c in counts) / sum(n for n, _ in counts),
        success_ci=cluster_bootstrap_ci([[float(r.success) for r in runs] for runs in tasks.values()], seed + "|s"),
        always=sum(c == n for n, c in counts),
        never=sum(c == 0 for _, c in counts),
        pass_at_k={str(k): fmean(pass_at_k(n, c, k) for n, c in counts) for k in range(1, epochs + 1)},
        pass_hat_k={str(k): fmean(pass_hat_k(n, c, k) for n, c in counts) for k in range(1, epochs + 1)},
        mean_tokens=fmean(t for task in tokens for t in task),
        tokens_ci=cluster_bootstrap_ci(tokens, seed + "|t"),
        tokens_within_sd=fmean(stdev(task) if len(task) > 1 else 0.0 for task in tokens),
        task_success={task: c / n for task, (n, c) in zip(tasks, counts)},
    )


def paired_differences(results: Iterable[RunResult]) -> list[PairedDifference]:
    """Every pair of policies that ran the same tasks with the same fault: differences with paired intervals."""
    by_group: dict[str, dict[str, dict[str, list[RunResult]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for r in sorted(results, key=lambda r: r.run_key):
        by_group[r.fault][r.policy][r.task].append(r)
    differences = []
    for fault in sorted(by_group, key=_fault_rank):
        policies = sorted(by_group[fault], key=_policy_rank)
        for a, b in combinations(policies, 2):
            tasks = sorted(by_group[fault][a].keys() & by_group[fault][b].keys())
            if not tasks:
                continue
            pairs = [(by_group[fault][a][t], by_group[fault][b][t]) for t in tasks]
            success = [fmean(r.success for r in x) - fmean(r.success for r in y) for x, y in pairs]
            tokens = [fmean(r.tokens for r in x) - fmean(r.tokens for r in y) for x, y in pairs]
            seed = f"{fault}|{a}|{b}"
            differences.append(
                PairedDifference(
                    fault,
                    a,
                    b,
                    len(tasks),
                    fmean(success),
                    bootstrap_ci(success, seed + "|s"),
                    fmean(tokens),
                    bootstrap_ci(tokens, seed + "|t"),
                )
            )
    return differences


def _policy_rank(policy: str) -> tuple[int, str]:
    return (POLICY_ORDER.index(policy) if policy in POLICY_ORDER else len(POLICY_ORDER), policy)


def _fault_rank(fault: str) -> int:
    return FAULT_ORDER.index(fault) if fault in FAULT_ORDER else len(FAULT_ORDER)


def _order(item: tuple[tuple[str, str, str, bool], list[RunResult]]) -> tuple[object, ...]:
    policy, fault, family, verified = item[0]
    return (family != ALL_FAMILIES, family, not verified, _policy_rank(policy), _fault_rank(fault))


@dataclass(frozen=True)
class MacroAudit:
    """One macro's calls over a session. Latencies are wall-clock: the one thing here that varies run to run."""

    macro: str
    calls: int
    failures: dict[str, int]
    mean_seconds: float
    p95_seconds: float
    mean_tokens_of_runs: float


def macro_audit(results: Iterable[RunResult]) -> list[MacroAudit]:
    calls: dict[str, list[MacroLogEntry]] = defaultdict(list)
    tokens: dict[str, list[int]] = defaultdict(list)
    for r in sorted(results, key=lambda r: r.run_key):
        for entry in r.macro_log:
            calls[entry.macro].append(entry)
        for name in {e.macro for e in r.macro_log}:
            tokens[name].append(r.tokens)
    audits = []
    for name in sorted(calls):
        seconds = sorted(e.seconds for e in calls[name])
        failures = Counter(e.failure_class for e in calls[name] if e.failure_class)
        audits.append(
            MacroAudit(
                name,
                len(seconds),
                dict(sorted(failures.items())),
                fmean(seconds),
                _percentile(seconds, 0.95),
                fmean(tokens[name]),
            )
        )
    return audits


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of sorted values."""
    return ordered[max(0, min(len(ordered) - 1, -(-int(q * 100) * len(ordered) // 100) - 1))]


@dataclass(frozen=True)
class PhaseTotal:
    """Where a policy's runs spent their wall time, summed over its runs (``core.phases``)."""

    policy: str
    runs: int
    seconds: float
    """The runs' wall time: the sum of their phases."""
    phases: dict[str, float]
    tests: float
    """pytest's own test-call time within those seconds: the floor no harness can go under."""


def phase_totals(results: Iterable[RunResult]) -> list[PhaseTotal]:
    """Totals per policy, then over every policy; runs without a timing (an error before the run) count none."""
    timed = [r for r in results if r.phases]
    by_policy: dict[str, list[RunResult]] = defaultdict(list)
    for r in timed:
        by_policy[r.policy].append(r)
    groups = [(p, by_policy[p]) for p in sorted(by_policy, key=_policy_rank)]
    if len(groups) > 1:
        groups.append((ALL_POLICIES, timed))
    return [_phase_total(policy, runs) for policy, runs in groups]


def _phase_total(policy: str, runs: list[RunResult]) -> PhaseTotal:
    phases = {name: round(sum(r.phases.get(name, 0.0) for r in runs), 4) for name in PHASES}
    tests = round(sum(r.phases.get(TESTS, 0.0) for r in runs), 4)
    return PhaseTotal(policy, len(runs), round(sum(phases.values()), 4), phases, tests)


def slowest_runs(results: Iterable[RunResult], count: int = 10) -> list[RunResult]:
    """The runs that took longest, by wall time (ties in run order)."""
    timed = sorted((r for r in results if r.phases), key=lambda r: r.run_key)
    return sorted(timed, key=lambda r: -wall_seconds(r))[:count]


def wall_seconds(result: RunResult) -> float:
    return sum(result.phases.get(name, 0.0) for name in PHASES)
