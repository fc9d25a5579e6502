"""The two modes a run works in, and the names of the policies the package ships.

``StrEnum``s: run records, reports, baselines and ``router.json`` carry the plain names, and the code spells
each name once, here.
"""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """What a policy routes a run to: micro tools only, or macro skills (and ``finish``) first."""

    MICRO = "micro"
    MACRO = "macro"


MICRO, MACRO = Mode.MICRO, Mode.MACRO
"""The public API's names for the modes (``from pytest_granularity import MICRO``): what a policy's route returns."""


class PolicyName(StrEnum):
    """The policies the package ships, in the order tables list them; a plugin's policies have names of their own,
    so a run record's ``policy`` stays a plain string."""

    MICRO = "micro"
    MACRO = "macro"
    HYBRID = "hybrid"
    HEURISTIC = "heuristic"
    LEARNED = "learned"


FIXED = (PolicyName.MICRO, PolicyName.MACRO, PolicyName.HYBRID)
"""The policies that route the same way on every task: the runs labels, oracles and simulated routes are made of."""
