"""The gate on repeated runs: a regression must be larger than its threshold *and* unlikely to be noise.

Per policy × fault, over the tasks both sides ran, three checks:

- success: did the mean per-task success fraction drop? (stratified permutation test);
- tokens: did the mean per-task tokens rise? (the same test on tokens);
- per task: did this task's success fraction drop? (Fisher's exact test, Tarone's correction).

``alpha`` is the chance that the whole gate fails a session in which nothing changed: it is
split evenly (Bonferroni) over the checks that can fail at all (a check whose runs are all
equal within every task cannot), so every failure line says at what level it was judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Protocol

from .metrics import bootstrap_ci
from .significance import fisher_drop, newcombe_interval, permutation_pvalue, tarone_level


@dataclass(frozen=True)
class Cell:
    """One task's runs of one policy and fault: the baseline's and this session's."""

    task: str
    before_success: tuple[bool, ...]
    before_tokens: tuple[int, ...]
    after_success: tuple[bool, ...]
    after_tokens: tuple[int, ...]

    @property
    def success_varies(self) -> bool:
        return len(set(self.before_success + self.after_success)) > 1

    @property
    def tokens_vary(self) -> bool:
        return len(set(self.before_tokens + self.after_tokens)) > 1


class Limits(Protocol):
    """The thresholds this gate reads (``gate.Thresholds`` has them)."""

    @property
    def alpha(self) -> float: ...
    @property
    def max_success_drop(self) -> float: ...
    @property
    def max_token_increase(self) -> float: ...


Group = tuple[str, str]


def judge(groups: dict[Group, list[Cell]], limits: Limits) -> tuple[list[str], list[str]]:
    """(regressions, improvements) over every policy × fault group."""
    live = sum(
        any(c.success_varies for c in cells) * 2 + any(c.tokens_vary for c in cells) for cells in groups.values()
    )
    regressions: list[str] = []
    improvements: list[str] = []
    if not live:
        return regressions, improvements
    level = limits.alpha / live
    judged_at = f"alpha {limits.alpha:g} over {live} check{'s' if live > 1 else ''}"
    for (policy, fault), cells in sorted(groups.items()):
        where = f"{policy} [fault {fault}] over {len(cells)} tasks ({_runs(cells)})"
        seed = f"{policy}|{fault}"
        if any(c.success_varies for c in cells):
            _success(regressions, improvements, where, seed, cells, level, judged_at, limits.max_success_drop)
            regressions += _per_task(policy, fault, cells, level, judged_at, limits.max_success_drop)
        if any(c.tokens_vary for c in cells):
            _tokens(regressions, improvements, where, seed, cells, level, judged_at, limits.max_token_increase)
    return regressions, improvements


def _runs(cells: list[Cell]) -> str:
    before = sum(len(c.before_success) for c in cells)
    after = sum(len(c.after_success) for c in cells)
    return f"{before} baseline runs, {after} now"


def _success(
    regressions: list[str],
    improvements: list[str],
    where: str,
    seed: str,
    cells: list[Cell],
    level: float,
    judged_at: str,
    threshold: float,
) -> None:
    pairs = [(c.before_success, c.after_success) for c in cells]
    before = fmean(fmean(b) for b, _ in pairs)
    after = fmean(fmean(a) for _, a in pairs)

    def change() -> str:
        low, high = bootstrap_ci([fmean(a) - fmean(b) for b, a in pairs], seed + "|success")
        return f"{before:.3f} -> {after:.3f} ({after - before:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}])"

    drop_p = permutation_pvalue([(a, b) for b, a in pairs], seed + "|drop")
    if drop_p <= level and before - after > threshold + 1e-12:
        regressions.append(
            f"{where}: success rate dropped {change()}, p={drop_p:.4f} <= {level:.4g} ({judged_at}), "
            f"past --granularity-max-success-drop={threshold:g}"
        )
    elif after > before and permutation_pvalue(pairs, seed + "|success-rise") <= level:
        improvements.append(f"{where}: success rate rose {change()}")


def _tokens(
    regressions: list[str],
    improvements: list[str],
    where: str,
    seed: str,
    cells: list[Cell],
    level: float,
    judged_at: str,
    threshold: float,
) -> None:
    pairs = [(c.before_tokens, c.after_tokens) for c in cells]
    before = fmean(fmean(b) for b, _ in pairs)
    after = fmean(fmean(a) for _, a in pairs)
    rise = after / before - 1 if before else 0.0

    def change() -> str:
        low, high = bootstrap_ci([fmean(a) - fmean(b) for b, a in pairs], seed + "|tokens")
        per_task = f"per task {after - before:+.1f}, 95% CI [{low:+.1f}, {high:+.1f}]"
        return f"{before:.1f} -> {after:.1f} ({rise:+.1%}; {per_task})"

    rise_p = permutation_pvalue(pairs, seed + "|tokens-rise")
    if rise_p <= level and rise > threshold + 1e-12:
        regressions.append(
            f"{where}: mean tokens rose {change()}, p={rise_p:.4f} <= {level:.4g} ({judged_at}), "
            f"past --granularity-max-token-increase={threshold:.1%}"
        )
    elif rise < 0 and permutation_pvalue([(a, b) for b, a in pairs], seed + "|tokens-fall") <= level:
        improvements.append(f"{where}: mean tokens fell {change()}")


def _per_task(policy: str, fault: str, cells: list[Cell], level: float, judged_at: str, threshold: float) -> list[str]:
    counts = [(sum(c.before_success), len(c.before_success), sum(c.after_success), len(c.after_success)) for c in cells]
    tests = [fisher_drop(*n) for n in counts]
    task_level, counted = tarone_level([smallest for _, smallest in tests], level)
    lines = []
    for cell, (bs, bn, as_, an), (p, smallest) in zip(cells, counts, tests):
        drop = bs / bn - as_ / an
        if smallest <= task_level and p <= task_level and drop > threshold + 1e-12:
            low, high = newcombe_interval(bs, bn, as_, an)
            lines.append(
                f"regressed: {cell.task} [{policy}, fault {fault}] success {bs}/{bn} -> {as_}/{an} "
                f"({bs / bn:.3f} -> {as_ / an:.3f}, {-drop:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}]), "
                f"p={p:.4f} <= {task_level:.4g} (Fisher exact; {judged_at}; tasks that could reach it: {counted})"
            )
    return lines
