"""Tests that tell a regression from noise, each valid by construction rather than by approximation.

- ``permutation_pvalue``: a stratified permutation test over paired cells (one cell per task).
  If nothing changed, the runs of a task before and after are exchangeable, so shuffling which
  of a task's runs count as "after" draws from the statistic's distribution under no change.
  Tasks stay paired (each is compared with itself), epochs of one task are never mixed with
  another's, and no assumption is made about how tasks differ: the false-alarm rate is at most
  the level for any number of tasks and epochs, on either side.
- ``fisher_drop``: the exact one-sided test (Fisher) of one task's success fraction, with the
  smallest p-value its totals allow, for Tarone's correction (``tarone_level``): a task whose
  totals cannot produce a significant result (5 of 5 before and after) is not counted.
- ``newcombe_interval``: the interval of a difference of two proportions (Newcombe's hybrid
  score interval, from two Wilson intervals), for one task's line.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Sequence
from math import comb, sqrt

PERMUTATIONS = 4999
BATCH = 250
EXCEEDANCES = 50
Z95 = 1.959963984540054

Pair = tuple[Sequence[float], Sequence[float]]


def permutation_pvalue(cells: Sequence[Pair], seed: str, resamples: int = PERMUTATIONS) -> float:
    """One-sided p-value that the ``after`` runs are higher, from ``(before, after)`` per task.

    Statistic: Σ over tasks of mean(after) − mean(before). Reproducible from ``seed``. Monte
    Carlo over up to ``resamples`` relabellings, stopped early once ``EXCEEDANCES`` of them
    reach the observed statistic (Besag and Clifford 1991: then p = EXCEEDANCES / draws, a valid
    p-value that saves time when the change is plainly noise); otherwise
    p = (1 + exceedances) / (1 + resamples). Tasks whose runs are all equal contribute nothing
    whatever the labels and are skipped; if no task varies, p = 1.
    """
    import numpy as np

    shapes: dict[tuple[int, int], list[list[float]]] = defaultdict(list)
    observed = 0.0
    for before, after in cells:
        pooled = [*map(float, before), *map(float, after)]
        if before and after and max(pooled) != min(pooled):
            shapes[(len(before), len(after))].append(pooled)
            observed += sum(after) / len(after) - sum(before) / len(before)
    if not shapes:
        return 1.0
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    tolerance = 1e-9 * max(1.0, abs(observed))
    exceedances = drawn = 0
    while drawn < resamples:
        count = min(BATCH, resamples - drawn)
        null = np.zeros(count)
        for (n_before, n_after), rows in sorted(shapes.items()):
            shuffled = rng.permuted(np.broadcast_to(np.array(rows), (count, len(rows), n_before + n_after)), axis=2)
            null += (shuffled[:, :, n_before:].mean(axis=2) - shuffled[:, :, :n_before].mean(axis=2)).sum(axis=1)
        hits = np.cumsum(null >= observed - tolerance)
        if exceedances + hits[-1] >= EXCEEDANCES:
            return EXCEEDANCES / (drawn + 1 + int(np.argmax(hits >= EXCEEDANCES - exceedances)))
        exceedances += int(hits[-1])
        drawn += count
    return (1 + exceedances) / (1 + resamples)


def fisher_drop(before_successes: int, before_runs: int, after_successes: int, after_runs: int) -> tuple[float, float]:
    """(p, smallest possible p): one-sided exact test that the success fraction dropped.

    Given the task's total successes, the "after" successes are hypergeometric if nothing
    changed; p is the chance of as few as observed, the smallest possible p that of the fewest
    the totals allow.
    """
    total = before_successes + after_successes
    runs = before_runs + after_runs
    lowest = max(0, total - before_runs)

    def probability(x: int) -> float:
        return comb(total, x) * comb(runs - total, after_runs - x) / comb(runs, after_runs)

    return sum(probability(x) for x in range(lowest, after_successes + 1)), probability(lowest)


def tarone_level(smallest: Sequence[float], level: float) -> tuple[float, int]:
    """(per-test level, tests counted): Bonferroni over only the tests that could reach it.

    Tarone (1990): the smallest K with at most K tests whose smallest possible p is ≤ level / K.
    Discrete tests that can never be significant do not dilute the others.
    """
    for k in range(1, len(smallest) + 1):
        if sum(m <= level / k for m in smallest) <= k:
            return level / k, k
    return level, 0


def wilson_interval(successes: int, runs: int) -> tuple[float, float]:
    if runs == 0:
        return (0.0, 1.0)
    p = successes / runs
    centre = (p + Z95**2 / (2 * runs)) / (1 + Z95**2 / runs)
    half = Z95 * sqrt(p * (1 - p) / runs + Z95**2 / (4 * runs**2)) / (1 + Z95**2 / runs)
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe_interval(
    before_successes: int, before_runs: int, after_successes: int, after_runs: int
) -> tuple[float, float]:
    """95% interval of after − before success fraction (Newcombe 1998, method 10)."""
    p1, p2 = after_successes / after_runs, before_successes / before_runs
    l1, u1 = wilson_interval(after_successes, after_runs)
    l2, u2 = wilson_interval(before_successes, before_runs)
    difference = p1 - p2
    return (difference - sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), difference + sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))
