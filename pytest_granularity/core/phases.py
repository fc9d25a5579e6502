"""Where a run's wall time goes: one clock per run, summed by phase.

The gate is paid on every push, so its cost must be visible before it can be cut. A run's time
splits into the phases below; ``other`` is what none of them covers (the record, the loop), so
the phases always add up to the run's wall time. ``tests`` is apart from all of them: the time
pytest itself spent in test calls, in every pytest run the run made (its tools', its macros',
its verifier's), the work no harness can avoid (see ``test_timer``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

PHASES = ("setup", "routing", "agent", "tools", "run_tests", "macros", "changes", "verifier", "cleanup", "other")
"""In the order a run goes through them: the workspace and the agent are built (``setup``), the
policy routes (``routing``), the agent is asked (``agent``), tools run (``tools``; the agent's own
test runs apart, ``run_tests``), macros run (``macros``, with their validation's tests), the
workspace's changes and diff are taken (``changes``), the verifier judges (``verifier``), the
workspace is removed (``cleanup``)."""
TESTS = "tests"
"""The key of pytest's own test-call time, inside the phases above (not one of them)."""


@dataclass
class PhaseClock:
    """Seconds spent per phase in one run; ``timing(phase)`` adds a stretch to its phase."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    started: float = field(default_factory=time.perf_counter)

    @contextmanager
    def timing(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start

    def record(self, tests: float) -> dict[str, float]:
        """The phases (rounded to 0.1 ms), ``other`` making them add up to the wall time so far, and ``tests``."""
        wall = time.perf_counter() - self.started
        named = {phase: seconds for phase, seconds in self.seconds.items() if phase != "other"}
        spent = {**named, "other": max(0.0, wall - sum(named.values())), TESTS: tests}
        return {phase: round(seconds, 4) for phase, seconds in spent.items()}
