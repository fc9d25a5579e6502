"""One version: pyproject.toml's, as the installed distribution reports it, is what the package and the command say."""

from __future__ import annotations

import tomllib
from importlib import metadata

import pytest
from conftest import REPO

import pytest_granularity
from pytest_granularity.cli import main


def test_the_command_the_package_and_pyproject_give_one_version(capsys):
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"granularity {declared}\n"
    assert pytest_granularity.__version__ == metadata.version("pytest-granularity") == declared
