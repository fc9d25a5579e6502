"""One of N interleaved parts of a history's candidates, so that N runners mine a long history at once.

Candidates are dealt out in turn (the i-th, newest first, to part ``i % N + 1``) rather than cut into N runs of
neighbours: old and new commits differ in size and test time, and dealing spreads both evenly over the parts.
``granularity tasks merge`` joins the parts' folders into the one a single run writes (``merge.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar

from ..core.errors import InputError

Shard = tuple[int, int]
"""``(K, N)``: the K-th of N parts, K from 1."""
_FORM = re.compile(r"(\d+)/(\d+)")
T = TypeVar("T")


def parse_shard(text: str) -> Shard:
    """``K/N`` as the option gives it, refused in one line unless 1 <= K <= N."""
    match = _FORM.fullmatch(text)
    if match is None:
        raise InputError(f"--shard {text}: give K/N, the K-th of N parts (such as 1/4)")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1:
        raise InputError(f"--shard {text}: N must be at least 1")
    if not 1 <= k <= n:
        raise InputError(f"--shard {text}: K must be between 1 and N")
    return k, n


def in_shard(candidates: Sequence[T], shard: Shard | None) -> list[T]:
    """The candidates of part ``shard`` (all of them when None), in their order."""
    if shard is None:
        return list(candidates)
    k, n = shard
    return [each for i, each in enumerate(candidates) if i % n + 1 == k]


def run_fields(shard: Shard | None) -> dict[str, Any]:
    """What a run's entry in ``mined.json`` says of its part: which one, so a merged ledger tells its runs apart."""
    return {} if shard is None else {"shard": f"{shard[0]}/{shard[1]}"}
