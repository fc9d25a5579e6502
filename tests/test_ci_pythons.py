"""The workflow that tests the package tests it on every Python that pyproject.toml accepts.

A Python the package claims but CI never runs is a promise nobody checks: the matrix of
``.github/workflows/granularity.yml`` must name exactly the minor versions ``requires-python`` admits.
"""

from __future__ import annotations

import tomllib

import yaml
from conftest import REPO
from packaging.specifiers import SpecifierSet


def test_the_gate_runs_on_every_python_that_pyproject_accepts():
    accepted = SpecifierSet(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"])
    claimed = [f"3.{minor}" for minor in range(30) if f"3.{minor}.0" in accepted]
    job = yaml.safe_load((REPO / ".github" / "workflows" / "granularity.yml").read_text())["jobs"]["gate"]
    assert job["strategy"]["matrix"]["python"] == claimed
    setup = next(step for step in job["steps"] if "setup-python" in step.get("uses", ""))
    assert setup["with"]["python-version"] == "${{ matrix.python }}"
