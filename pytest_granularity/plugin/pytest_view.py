"""The configuration a ``pytest`` run would have here, for the ``granularity`` command.

``granularity macros``, ``export-mcp`` and ``tasks check`` must see the macros, agents and
policies a test run in the same rootdir sees: the ini keys, plugins installed through entry
points and ``conftest.py`` files. Rather than re-implement how pytest finds them, the command
asks pytest: :func:`with_pytest_config` goes through ``pytest.main`` (ini, plugins, initial
conftests, the same rootdir rules) and answers ``pytest_cmdline_main`` first, so no session is
run and nothing is collected. The command then resolves extensions with the plugin's own
functions (``extensions``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest


class _Command:
    """A plugin for one ``pytest.main`` call: runs the command on the configured config and ends there."""

    def __init__(self, command: Callable[[pytest.Config], int]) -> None:
        self.command = command

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> int:
        return self.command(config)


def with_pytest_config(paths: Sequence[Path], command: Callable[[pytest.Config], int]) -> int:
    """``command(config)`` with the config ``pytest PATHS`` would run with in the current directory.

    Output is not captured and no cache is written; a bad ini file or option is reported as
    pytest reports it (exit code 4).
    """
    args = ["--capture=no", "-p", "no:cacheprovider", *map(str, paths)]
    return int(pytest.main(args, plugins=[_Command(command)]))
