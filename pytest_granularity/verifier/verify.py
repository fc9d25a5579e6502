"""The task's verifier: the only judge of success.

The hidden verifier tests are copied into the final workspace only now, run by pytest in a fresh
subprocess that nothing in the workspace can reconfigure or replace (``run_pytest(isolated=True)``),
and removed again. The verdict comes from that run's own record of every test, not from its exit
status alone: the verifier's tests were collected, every one of them passed (none skipped or
deselected, unless the task allows skips), a canary test that must fail did fail, and pytest
exited 0. Nothing the agent or a macro said counts. A task that names the project's own tests
(``verifier.suite``) also needs them to pass, run after the hidden tests through the warm runner.

An agent can break the code under test (a failing test, an import error, a process that ends
before pytest returns): that is a failed run. A verifier that hangs, finds no tests or cannot
start is an infrastructure error, kept apart from agent failures.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.pytest_spec import install_line
from ..core.tasks import Task
from ..core.workspace import IGNORED_DIRS, IGNORED_SUFFIXES, Workspace, overlay, read_tree
from ..process.isolated_pytest import APPEND_PATH_INI, CANARY_PREFIX
from ..process.pytest_process import PytestRun, remembered, run_pytest
from ..process.sandbox import NO_SANDBOX, Sandbox

VERIFIER_DIR = "_granularity_verifier"
AGENT_FAILURE_CODES = (1, 2)
INTERNAL_ERROR = 3
USAGE_ERROR = 4
NAMED = 3
SUITE_SCOPE = "verifier suite"
CANARY_TEMPLATE = """def {name}():
    assert False, "the canary fails in every honest run"
"""


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    output: str
    infrastructure_error: str | None = None


def verify(task: Task, workspace: Workspace, sandbox: Sandbox = NO_SANDBOX, *, first_failure: bool = False) -> Verdict:
    """The verdict on the workspace as it is now.

    ``first_failure`` is for callers that want only whether it is accepted, and expect a rejection
    (``tasks check`` on untouched and cheating workspaces): pytest stops at the first hidden test
    that does not pass, which already rejects, and skips the rest (many verifiers end with the
    project's whole suite, run again in a subprocess). The verdict is the one the whole run gives:
    the canary runs last, so a run that stops never reaches it, and a run with no failure runs
    everything. Only its output is shorter, and a later test that would hang the run (an
    infrastructure error in a whole run) is never reached.
    """
    _clear(workspace.root / VERIFIER_DIR)
    missing = task.pytest.missing_plugins() if task.pytest is not None else []
    if missing:
        names = ", ".join(p.module for p in missing)
        return Verdict(
            False, "", f"the task's tests need pytest plugins not installed here ({names}): {install_line(missing)}"
        )
    lone = _drop_bytecode(workspace.root)
    if lone:
        shown = ", ".join(lone[:NAMED]) + (" ..." if len(lone) > NAMED else "")
        return Verdict(False, f"[verifier] compiled Python with no source beside it, which no diff shows: {shown}")
    run = hidden_run(task, workspace, sandbox, first_failure=first_failure)
    if run.timed_out:
        return Verdict(False, run.tail(), f"verifier timed out after {task.verifier_timeout:g}s")
    canary = canary_name(task)
    verdict = judge(run, f"{VERIFIER_DIR}/{canary}.py::{canary}", task.verifier_allow_skips, first_failure)
    if not verdict.accepted or not task.verifier_suite:
        return verdict
    return _project_suite(task, workspace, sandbox, first_failure, verdict)


def hidden_run(
    task: Task,
    workspace: Workspace,
    sandbox: Sandbox = NO_SANDBOX,
    *,
    first_failure: bool = False,
    each: bool = False,
    memo_scope: str = "",
) -> PytestRun:
    """One run of the hidden tests and their canary on the workspace as it is, the verifier's way, with
    every test's outcome recorded: what :func:`verify` judges, and what mining reads test by test (``each``:
    a file that cannot be collected does not stop the others, which a verdict needs no more than one of).
    A ``memo_scope`` of its own runs the tests again where the same run was made before (a repeat).

    A run to stop at its ``first_failure`` is answered by the same run made whole, where one was made (a
    mined candidate's last repeat on the parent): up to its first failure, a stopped run runs what the whole
    run ran, in the same order, so its verdict is the whole run's."""
    root = workspace.root
    folder = root / VERIFIER_DIR
    _clear(folder)
    overlay(folder, task.verifier_tests)
    hidden = read_tree(task.verifier_tests)
    canary = canary_name(task, hidden)
    (folder / f"{canary}.py").write_text(CANARY_TEMPLATE.format(name=canary))
    options = [*_hidden_test_options(task, folder), "-rfE"]
    targets = [*(["--continue-on-collection-errors"] if each else []), *_targets(task, canary)]
    settings: dict[str, Any] = dict(isolated=True, sandbox=sandbox, memo_scope=memo_scope, config=task.pytest_config)
    try:
        if first_failure and (whole := remembered(root, [*options, *targets], task.verifier_timeout, **settings)):
            return whole
        args = [*options, *(["-x"] if first_failure else []), *targets]
        laid = {f"{VERIFIER_DIR}/{rel}": data for rel, data in hidden.items() if rel.endswith(".py")}
        return run_pytest(root, args, task.verifier_timeout, laid=laid, **settings)
    finally:
        _clear(folder)


def _hidden_test_options(task: Task, folder: Path) -> list[str]:
    """No ``conftest.py`` is read, or only those inside the verifier's own folder (``verifier.conftest``): a
    workspace's conftest, planted or edited, never is.

    Hidden tests with conftests are a project's own test tree: they are imported as the project imports
    them, pytest's default way (``prepend``), so a helper module beside them (``from common import ...``)
    or their package (``from tests.helpers import ...``) is found. That puts only folders of the verifier's
    own, which the verifier has just laid, ahead of the installed modules. ``verifier.pythonpath`` folders
    are appended after the workspace, as the workspace itself is (``isolated_pytest``)."""
    if task.verifier_conftest:
        conftest = [f"--confcutdir={folder}", "--import-mode=prepend"]
    else:
        conftest = ["--noconftest", "--import-mode=importlib"]
    paths = [f"{APPEND_PATH_INI}={' '.join(task.verifier_pythonpath)}"] if task.verifier_pythonpath else []
    files = task.pytest.options.get("python_files") if task.pytest is not None else None
    if files:  # the project's patterns, and the canary's, which they need not match
        words = files.split() if isinstance(files, str) else [w for line in files for w in line.split()]
        paths.append(f"python_files={' '.join([*words, CANARY_PREFIX + '*.py'])}")
    return [*conftest, *(option for p in paths for option in ("-o", p))]


def _targets(task: Task, canary: str) -> list[str]:
    """The whole verifier folder, or only the selected tests and the canary (``verifier.select``)."""
    if not task.verifier_select:
        return [VERIFIER_DIR]
    return [*(f"{VERIFIER_DIR}/{node}" for node in task.verifier_select), f"{VERIFIER_DIR}/{canary}.py"]


def _project_suite(task: Task, workspace: Workspace, sandbox: Sandbox, first_failure: bool, hidden: Verdict) -> Verdict:
    """The task's ``verifier.suite``: the project's own tests, which must still pass once the hidden tests have.

    They run the project's way (its config and conftest), as a ``python -m pytest`` the verifier started
    would, but through the warm runner, in the verifier's sandbox, with the hidden files gone and the
    verifier's timeout of their own. Their memo is the verifier's own: a run the agent or a macro made on
    the same files is never reused. Only pytest's exit status counts, 0 accepts; a timeout is an
    infrastructure error, as the verifier's own is.
    """
    paths = list(task.verifier_suite)
    run = run_pytest(
        workspace.root,
        [*(["-x"] if first_failure else []), *paths],
        task.verifier_timeout,
        sandbox=sandbox,
        memo_scope=SUITE_SCOPE,
        config=task.pytest_config,
    )
    shown = " ".join(paths)
    if run.timed_out:
        return Verdict(False, run.tail(), f"the project's suite ({shown}) timed out after {task.verifier_timeout:g}s")
    if run.exit_code != 0:
        return _rejected(run, f"the project's own suite ({shown}) did not pass: pytest exited {run.exit_code}")
    return Verdict(True, f"{hidden.output}\n[project suite: {shown}]\n{run.tail()}")


def canary_name(task: Task, hidden: Mapping[str, bytes] | None = None) -> str:
    """A name the agent cannot know in advance (it hashes the hidden verifier's files, ``hidden`` where the
    caller has read them already), the same every run."""
    digest = hashlib.blake2b(digest_size=6)
    for rel, data in sorted((read_tree(task.verifier_tests) if hidden is None else hidden).items()):
        digest.update(rel.encode() + b"\0" + data)
    return CANARY_PREFIX + digest.hexdigest()


def judge(run: PytestRun, canary: str, allow_skips: bool = False, first_failure: bool = False) -> Verdict:
    """The verdict from the run's own record; the reason for a rejection heads the output.

    A run told to stop at its first failure (``first_failure``) that did stop is rejected for the
    tests that did not pass: the canary and the tests after them never ran, which is no one's doing.
    """
    results = run.results
    if results is not None and "exited" in results:
        return _exited(run, results["exited"])
    if results is None:
        return _stopped_by_workspace(run)
    status = results["exitstatus"]
    if status == INTERNAL_ERROR and results["internal_error"] == "workspace":
        return _rejected(run, "pytest crashed in code from the workspace (internal error)")
    if status == USAGE_ERROR and results["errors"]:
        # A selected test (``verifier.select``) in a file the workspace's code stops from importing is "not
        # found": pytest calls that a usage error, but it is the workspace's failure, as any collection error is.
        return _rejected(run, _collection_errors(results["errors"]))
    if status not in (0, *AGENT_FAILURE_CODES):
        return Verdict(False, run.tail(), f"verifier could not run (pytest exit code {status})")
    tests = {node: outcome for node, outcome in results["outcomes"].items() if node != canary}
    if not (tests or results["errors"]):
        return Verdict(False, run.tail(), "the verifier collected no tests")
    problem = (first_failure and _not_passed(tests, allow_skips)) or _problem(
        results, tests, results["canaries"].get(canary), allow_skips
    )
    if problem is None and (status != 0 or run.exit_code != 0):
        problem = f"pytest exited {run.exit_code} (its own status {status})"
    return _rejected(run, problem) if problem else Verdict(True, run.tail())


def _exited(run: PytestRun, exited: dict[str, Any]) -> Verdict:
    """A process ended by ``os._exit``: the task's fault when a verifier file called it, else the workspace's."""
    if str(exited.get("file", "")).startswith(VERIFIER_DIR + "/"):
        return Verdict(
            False,
            run.tail(),
            f"the verifier's own test {exited.get('test')} ended the process (os._exit): the task's verifier is broken",
        )
    return _stopped_by_workspace(run)


def _stopped_by_workspace(run: PytestRun) -> Verdict:
    """A rejection, never an infrastructure error: a run that ended itself, by ``os._exit`` or by a signal
    (``os.kill(os.getpid(), 9)``, a warm server killed under it), must not turn a failure into an error row.
    The harness's own kills (timeout, interrupt) never reach a verdict."""
    code = run.exit_code
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"ended (exit code {code})"
    return _rejected(run, f"pytest {how} without recording its results: code in the workspace stopped it")


def _problem(results: dict[str, Any], tests: dict[str, str], canary: str | None, allow_skips: bool) -> str | None:
    if results["errors"]:
        return _collection_errors(results["errors"])
    if canary != "failed":
        return (
            f"the canary test that must fail ended {canary or 'not run'}: code in the workspace interfered with pytest"
        )
    if results["deselected"]:
        return f"{results['deselected']} verifier tests were deselected"
    unreported = set(results["collected"]) - set(results["outcomes"])
    if unreported:
        return f"{len(unreported)} collected verifier tests never reported an outcome"
    if allow_skips and all(outcome == "skipped" for outcome in tests.values()):
        return f"no verifier test ran: all {len(tests)} skipped (allow_skips lets some skip, not all)"
    return _not_passed(tests, allow_skips)


def _collection_errors(errors: list[str]) -> str:
    return f"{len(errors)} verifier test files could not be collected: {', '.join(errors)}"


def _not_passed(tests: dict[str, str], allow_skips: bool) -> str | None:
    allowed = ("passed", "skipped") if allow_skips else ("passed",)
    bad = sorted(node for node, outcome in tests.items() if outcome not in allowed)
    if not bad:
        return None
    named = ", ".join(f"{n} ({tests[n]})" for n in bad[:NAMED])
    return f"{len(bad)} of {len(tests)} verifier tests did not pass: {named}{' ...' if len(bad) > NAMED else ''}"


def _rejected(run: PytestRun, reason: str) -> Verdict:
    return Verdict(False, f"[verifier] {reason}\n{run.tail()}")


def _drop_bytecode(root: Path) -> list[str]:
    """Remove the workspace's ``__pycache__`` folders before the tests import anything, and name its other
    bytecode files. Nothing the harness shows or compares sees bytecode (the diff, the changes and the
    memo of pytest runs skip it), yet Python runs a cached file whose header matches its source's size
    and time in place of the source, and a lone ``.pyc`` where no source is: a cheat the diff would
    hide. Caches go (Python makes them again); a lone ``.pyc`` may be a served repository's own file,
    so it is named, not deleted, and the verdict is a rejection."""
    lone = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [d for d in dirnames if d == "__pycache__"]:
            _clear(Path(dirpath) / name)
        dirnames[:] = [d for d in dirnames if d not in IGNORED_DIRS]  # environments nothing here imports from
        lone += [(Path(dirpath) / n).relative_to(root).as_posix() for n in filenames if n.endswith(IGNORED_SUFFIXES)]
    return sorted(lone)


def _clear(folder: Path) -> None:
    """Remove a folder the verifier clears (its own, a bytecode cache); a symlink of that name is unlinked,
    never followed."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
