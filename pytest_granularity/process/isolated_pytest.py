"""Run pytest so that nothing in the working directory can stand in for it, and record every outcome.

Executed as a script: ``python -s -B isolated_pytest.py RESULTS [pytest args]``, with a nonce on
stdin; or imported by a warm server's child (``pytest_server``), which calls :func:`run` the same
way. Run as a script, Python puts only this file's folder on ``sys.path`` (never the working
directory); the script drops that too, so pytest, its plugins and the standard library come only
from the installation. The working directory (the workspace) is
appended to ``sys.path`` only when the session starts, after pytest and its plugins are loaded,
and appended, not prepended, so a workspace file can never shadow an installed module.

The outcomes are written to RESULTS, outside the workspace, only after pytest returns, with
the nonce read from stdin before any workspace code ran: a process that the code under test
ends early (``os._exit(0)`` at import) leaves no results, which is a failed run, whatever its
exit status.

Canaries: a test in a file named ``test_granularity_canary_*.py`` must fail. Its real outcome is
recorded from the final report, then shown as an expected failure (``x``), so an honest run
still exits 0. Code in the workspace that turns failing reports into passes (it runs in this
process: the tests import it) turns the canary into a pass too, and is caught.
"""

import json
import os
import sys

if __name__ == "__main__":
    sys.path.pop(0)

import pytest  # only now, with this script's folder gone from sys.path

CANARY_PREFIX = "test_granularity_canary_"
APPEND_PATH_INI = "granularity_append_path"
"""Folders of the working directory appended to ``sys.path`` after it (a src layout's ``src``), given as
``-o granularity_append_path=src``: space-separated, each relative to the root, appended like the root."""
FINAL = {"failed": 3, "error": 3, "xpassed": 2, "skipped": 1, "xfailed": 1, "passed": 0}
"""How bad an outcome is: a test keeps the worst outcome any of its phases had."""


class Recorder:
    """Records collection and every test's outcome, from pytest's own reports."""

    def __init__(self) -> None:
        self.collected: list[str] = []
        self.deselected = 0
        self.errors: list[str] = []
        self.outcomes: dict[str, str] = {}
        self.canaries: dict[str, str] = {}
        self.internal_error: str | None = None
        self.root = ""
        self.current: str | None = None

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.current = nodeid

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        parser.addini(APPEND_PATH_INI, "folders of the root appended to sys.path after it", type="args", default=[])

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.root = str(session.config.rootpath)
        sys.path.append(self.root)
        for folder in session.config.getini(APPEND_PATH_INI):
            path = os.path.normpath(os.path.join(self.root, folder))
            if path.startswith(self.root + os.sep):
                sys.path.append(path)

    def pytest_internalerror(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """Whether pytest crashed on its own or in workspace code (``SystemExit`` at import, say)."""
        inside = (
            any(str(entry.path).startswith(self.root + os.sep) for entry in excinfo.traceback) if self.root else False
        )
        self.internal_error = "workspace" if inside else "pytest"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append(report.nodeid)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Canaries run last, so code that tampers with pytest mid-run is caught too."""
        items.sort(key=_is_canary)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
        report = yield
        if _is_canary(item) and report.when == "call":
            self.canaries[report.nodeid] = report.outcome
            if report.failed:
                report.outcome, report.wasxfail = "skipped", "pytest-granularity canary: failed, as it must"
        return report

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = _outcome(report)
        if FINAL[outcome] >= FINAL[self.outcomes.get(report.nodeid, "passed")]:
            self.outcomes[report.nodeid] = outcome


def _is_canary(item: pytest.Item) -> bool:
    return item.path.name.startswith(CANARY_PREFIX)


def _outcome(report: pytest.TestReport) -> str:
    xfail = hasattr(report, "wasxfail")
    if report.when != "call" and report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    if report.failed:
        return "failed"
    return "xpassed" if xfail else "passed"


def main() -> int:
    results, args = sys.argv[1], sys.argv[2:]
    del sys.argv[1]
    return run(results, args, sys.stdin.readline().strip())


def run(results: str, args: list[str], nonce: str) -> int:
    """Run pytest with ``args`` and write its record to ``results``; also called by the warm test runner's
    child (``pytest_server``), which has set ``sys.path`` and ``sys.argv`` as this script would."""
    recorder = Recorder()
    _record_exits(results, nonce, recorder)
    status = int(pytest.main(args, plugins=[recorder]))
    document = {
        "nonce": nonce,
        "exitstatus": status,
        "collected": recorder.collected,
        "deselected": recorder.deselected,
        "errors": recorder.errors,
        "outcomes": recorder.outcomes,
        "canaries": recorder.canaries,
        "internal_error": recorder.internal_error,
    }
    _write(results, document)
    return status


def _write(results: str, document: dict) -> None:  # type: ignore[type-arg]
    with open(results + ".part", "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    os.replace(results + ".part", results)


def _record_exits(results: str, nonce: str, recorder: Recorder) -> None:
    """``os._exit`` first notes who called it and in which test, so the verdict can tell a verifier
    that ends the process (the task's fault) from workspace code that does (the agent's).

    Only before the results are written: an exit at interpreter shutdown leaves them as they are.
    """
    real_exit = os._exit

    def noted_exit(code: int) -> None:
        if not os.path.exists(results):
            try:
                caller = os.path.relpath(sys._getframe(1).f_code.co_filename, recorder.root or os.getcwd())
            except ValueError:
                caller = "?"
            _write(results, {"nonce": nonce, "exited": {"file": caller, "test": recorder.current, "code": code}})
        real_exit(code)

    os._exit = noted_exit  # type: ignore[assignment]


if __name__ == "__main__":
    sys.exit(main())
