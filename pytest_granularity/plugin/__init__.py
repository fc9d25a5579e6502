"""The pytest plugin (the ``pytest11`` entry point): hooks only, handing off to the modules beside it.

This package holds everything that touches pytest and may import every group but ``mcp``.

``options`` declares the command line, ``settings`` reads it once at configure, ``collect``
turns every ``task.yaml`` into one test per policy, fault and epoch, and a
:class:`~pytest_granularity.plugin.session.GranularitySession` keeps the run records and, at the end,
gates them on the baseline and writes the table and the files. See ``collect`` for the items.

Installed, this module is imported by every pytest run in the environment (a user's own test
runs, and every ``python -m pytest`` their tests start), and almost none of them ask for a
session. So it imports only what declaring the options needs; the session's machinery (the
runner, the gate, the report and numpy under them: about 0.2 s) is imported by the hooks once a
session is on. The harness's own pytest runs load no plugins at all (``process/pytest_process.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .. import hookspecs
from ..core.tasks import TASK_FILE
from . import options
from .stash import session_key

if TYPE_CHECKING:
    from .session import GranularitySession

pytest_plugins = ["pytest_granularity.plugin.model_plugin"]

interrupts_key = pytest.StashKey[bool]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "granularity(policy, fault): a pytest-granularity benchmark run")
    if config.getoption("--granularity", None) is None and not config.getoption("--granularity-contracts", False):
        return
    from .extensions import macro_roots
    from .options import sandbox_of
    from .session import GranularitySession
    from .settings import GranularitySettings

    _clean_up_on_interrupt(config)
    sandbox = sandbox_of(config)
    if config.getoption("--granularity-contracts", False):
        from .contract_session import ContractSession

        config.pluginmanager.register(ContractSession(macro_roots(config), sandbox), "granularity-contracts")
    if config.getoption("--granularity", None) is None:  # an empty value is a usage error, not "off"
        return
    session = GranularitySession(GranularitySettings.from_config(config, sandbox))
    config.stash[session_key] = session
    config.pluginmanager.register(SessionHooks(config, session), "granularity-session")
    if config.pluginmanager.hasplugin("html"):
        from .pytest_html_hooks import PytestHtmlHooks

        page = session.settings.outputs.html
        config.pluginmanager.register(PytestHtmlHooks(config, page), "granularity-pytest-html")


def _clean_up_on_interrupt(config: pytest.Config) -> None:
    """SIGINT and SIGTERM kill the runs' process groups and remove their folders (see ``interrupts``).

    An xdist worker also asks to be sent SIGTERM when the controller dies, so killing the
    controller alone cleans up after every worker too.
    """
    from ..process import interrupts

    config.stash[interrupts_key] = interrupts.install()
    if hasattr(config, "workerinput"):
        interrupts.die_with_parent()


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(interrupts_key, False):
        from ..process import interrupts

        interrupts.uninstall()


class SessionHooks:
    """The session's report hooks, registered at configure (after every installed plugin), so
    they run in the same place among other plugins' hooks as when the session was first written."""

    def __init__(self, config: pytest.Config, session: GranularitySession) -> None:
        self.config = config
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        records = self.session.record(report)
        if not self.session.settings.worker:
            for record in records:
                self.config.hook.pytest_granularity_run_finished(config=self.config, result=record)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        try:
            session.exitstatus = self.session.finish(session.exitstatus)
        finally:
            self.session.settings.run.sandbox.servers.stop()  # the runs' warm servers end with the session

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        self.session.display(terminalreporter)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep shard I of N (``--granularity-shard``)."""
    session = config.stash.get(session_key, None)
    if session is None or session.settings.shard is None:
        return
    from .collect import in_shard

    keep = in_shard(items, session.settings.shard)
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A task folder's setup, solution and hidden verifier are data, never tests of their own, and
    neither are the fixtures the collected tasks are built on.

    In a contract session the items are the contract checks: no file is collected, so macro
    folders given as paths (and the example projects inside them) are not run as tests.
    """
    if collection_path.name != TASK_FILE and (collection_path.parent / TASK_FILE).exists():
        return True
    session = config.stash.get(session_key, None)
    fixtures = session.settings.fixtures if session else frozenset()
    if fixtures and collection_path.is_dir() and collection_path.resolve() in fixtures:
        return True
    if config.getoption("--granularity-contracts", False) and collection_path.is_file():
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == TASK_FILE and session_key in parent.config.stash:
        from .collect import TaskFile

        return TaskFile.from_parent(parent, path=file_path)
    return None


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder named ``task.yaml`` is a broken task (a collection error), never a folder of tests."""
    if path.name == TASK_FILE and session_key in parent.config.stash:
        from .collect import TaskFile

        return TaskFile.from_parent(parent, path=path)
    return None


@pytest.fixture
def granularity_fault(request: pytest.FixtureRequest) -> Iterator[str]:
    """Injects the item's fault (``early`` or ``late``) through the macro fault hooks while it runs."""
    from ..core.failures import Fault
    from .collect import injected_fault

    with injected_fault(request.config.pluginmanager, getattr(request.node, "fault", Fault.NONE)) as fault:
        yield fault
