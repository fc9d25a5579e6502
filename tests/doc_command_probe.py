"""A pytest plugin that checks a documented pytest command and stops before it runs anything.

Loaded with ``-p doc_command_probe`` by ``tests/test_doc_commands.py``. pytest has parsed the
command line before any hook here is called, so an unknown option or a bad choice is already a
usage error. With ``DOC_COMMAND_PROBE=configure`` the check goes one step further: every plugin's
``pytest_configure`` runs (this plugin's last), so the granularity plugin reads and validates its
settings (policies, agent, baseline, thresholds); with ``parse`` it stops before configuring, for a
command that needs something the test does not have. Either way the session ends there, with no
collection and no xdist worker, after checking that each path argument exists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MODE = os.environ.get("DOC_COMMAND_PROBE", "configure")


def _missing_paths(config: pytest.Config) -> list[str]:
    """The command's path arguments (node ids less their ``::`` part) that do not exist."""
    here = config.invocation_params.dir
    return [arg for arg in config.args if not (Path(here) / arg.split("::")[0]).exists()]


def _verdict(config: pytest.Config) -> tuple[str, int]:
    missing = _missing_paths(config)
    if missing:
        return f"no such path: {', '.join(missing)}", pytest.ExitCode.USAGE_ERROR
    return f"doc command probe: {MODE} ok", pytest.ExitCode.OK


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    if MODE != "parse":
        return None
    message, code = _verdict(config)
    print(message)
    return code


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if MODE == "configure":
        message, code = _verdict(config)
        pytest.exit(message, returncode=code)
