"""The statistics under the epoch gate, by hand and against known values."""

from __future__ import annotations

from math import comb

import pytest

from pytest_granularity.gate.significance import fisher_drop, newcombe_interval, permutation_pvalue, tarone_level


def test_fisher_drop_by_hand():
    p, smallest = fisher_drop(5, 5, 0, 5)
    assert p == pytest.approx(1 / comb(10, 5)) and smallest == pytest.approx(p)
    p, smallest = fisher_drop(5, 5, 4, 5)
    assert p == pytest.approx(1 - 0.5) and smallest == pytest.approx(0.5), "9 of 10 succeed: 4 now is as likely as 5"
    assert fisher_drop(5, 5, 5, 5) == (1.0, 1.0), "no failure anywhere: nothing can be significant"


def test_tarone_counts_only_tests_that_could_reach_the_level():
    assert tarone_level([1.0] * 79 + [0.004], 0.05) == (0.05, 1)
    level, counted = tarone_level([0.004] * 10, 0.05)
    assert counted == 10 and level == pytest.approx(0.005)
    assert tarone_level([], 0.05) == (0.05, 0)


def test_newcombe_interval_matches_the_paper():
    """Newcombe (1998), table II, example (a): 56/70 − 48/80, method 10 gives [0.0524, 0.3339]."""
    low, high = newcombe_interval(48, 80, 56, 70)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


def test_permutation_pvalue_is_one_when_nothing_varies_and_exact_on_a_small_case():
    assert permutation_pvalue([([1, 1], [1, 1]), ([0, 0, 0], [0])], "s") == 1.0
    p = permutation_pvalue([([0] * 5, [1] * 5)], "s")
    assert p == pytest.approx(1 / comb(10, 5), abs=0.002), "every success after: one relabelling in 252 is as extreme"


def test_permutation_pvalue_is_reproducible_and_directional():
    cells = [([1, 0, 1], [0, 0, 1]), ([5, 7], [9, 11]), ([3, 3, 4], [4, 5, 6])]
    assert permutation_pvalue(cells, "x") == permutation_pvalue(cells, "x")
    assert permutation_pvalue(cells, "x") < 0.5 < permutation_pvalue([(a, b) for b, a in cells], "x")
