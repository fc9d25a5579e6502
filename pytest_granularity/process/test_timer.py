"""A pytest plugin for the harness's own pytest runs: how long the tests themselves took.

Loaded with ``-p`` into every pytest run the harness starts (the agent's ``run_tests``, a macro's
validation, the verifier). It prints nothing, so what the agent sees does not change; it sums
pytest's own duration of every test call and writes the sum to the file named by
``GRANULARITY_TEST_TIMES`` (in the run's scratch folder, outside the workspace) when pytest ends.
That sum is the floor of a benchmark's cost: the work no harness can avoid.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pytest is not imported for the constant: the harness reads ENV without loading pytest
    import pytest

ENV = "GRANULARITY_TEST_TIMES"

_calls: list[float] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _calls.append(report.duration)


def pytest_unconfigure(config: pytest.Config) -> None:
    path = os.environ.get(ENV)
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(repr(sum(_calls)))
