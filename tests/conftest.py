from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import numpy  # noqa: F401  (see below)
import pytest

from pytest_granularity.process.sandbox import probe

# numpy 2.4 refuses to be imported twice in one process, and pytester's in-process runs drop the
# modules a run imported (BM25 retrieval imports numpy inside a run): imported here, it is kept.

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent
SANDBOX_PROBLEM = probe()
REQUIRE_DEPENDENCIES = os.environ.get("GRANULARITY_REQUIRE_DEPENDENCIES") == "1"
"""Set by .ci/run, which installs every dependency a test can skip for: there a skip is a failure."""
needs_bwrap = pytest.mark.skipif(
    SANDBOX_PROBLEM is not None, reason=f"bubblewrap cannot sandbox here: {SANDBOX_PROBLEM}"
)


@pytest.fixture
def listener():
    """A server on the host's loopback: code that reaches it has the host's network."""
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def connected(listener: socket.socket) -> bool:
    """Whether anything connected to ``listener`` (it never blocks)."""
    try:
        listener.accept()[0].close()
        return True
    except BlockingIOError:
        return False


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytest project made of tests/data's tasks and packages (not the recorded pytest outputs and their
    probe suite, whose failing tests a run there would collect)."""
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("pytest_wording"))
    return pytester


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of tests/data, so tests may break it freely."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


@pytest.fixture
def fix_add(data_copy: Path):
    from pytest_granularity.core.tasks import load_task

    return load_task(data_copy / "tasks" / "fix-add")


def _no_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if REQUIRE_DEPENDENCIES and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but CI installs every dependency (GRANULARITY_REQUIRE_DEPENDENCIES=1): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    _no_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    report = yield
    _no_skip(report)
    return report
