"""A missing optional dependency is refused with the install line that works today, the one the workflows use.

The package is not on the index yet: ``pip install 'pytest-granularity[extra]'`` would fail. Every message that
names an extra takes its line from ``core.distribution.install_command``; the local model's two are in
tests/test_local_model.py.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from pytest_granularity import cli
from pytest_granularity.core.distribution import install_command, requirement
from pytest_granularity.core.errors import GranularityError
from pytest_granularity.plugin import model_plugin


def test_the_install_line_is_pip_on_the_requirement():
    assert install_command(["train"]) == f"pip install '{requirement(['train'])}'"


def test_a_command_whose_extra_is_missing_names_the_install_line(monkeypatch):
    def missing(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(GranularityError) as refused:
        cli._extra("routing.training", "scikit-learn", "train")
    assert str(refused.value) == f"needs scikit-learn: {install_command(['train'])}"


def test_a_model_agent_without_the_openai_package_names_the_install_line(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(pytest.UsageError) as refused:
        model_plugin._require_openai("openai", "model")
    assert str(refused.value) == f"--granularity-agent=openai needs the openai package: {install_command(['model'])}"
