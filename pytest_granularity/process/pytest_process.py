"""Running pytest in a fresh subprocess inside a workspace, with a hard timeout.

Shared by the agent's ``run_tests`` tool, the macros' own validation and the verifier, so all
three run tests the same way: a new process group that is killed whole on timeout (a hung
test cannot leave children behind, and the group is killed after a normal end too, and on
Ctrl-C or SIGTERM through ``interrupts``), no bytecode or cache files written into the workspace,
the tests' temporary files kept in a scratch folder removed afterwards, no third-party
pytest plugins auto-loaded (this one must not recurse into itself, and
installed plugins such as xdist, randomly or benchmark must not change what a run sees), and,
given a sandbox, only the workspace and the scratch folder writable (see ``sandbox``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..core.run_folders import tracked_folder
from ..core.vouched import digest, vouched_for
from . import test_timer
from .interrupts import kill_group, marked, tracked_process
from .pytest_server import PytestRequest, server_for
from .sandbox import NO_SANDBOX, Sandbox
from .test_output import normalise_wording
from .test_timer import ENV as TIMER_ENV

OUTPUT_TAIL_LINES = 40
MEMO_SIZE = 1024
_MEMO: OrderedDict[str, PytestRun] = OrderedDict()


@dataclass
class TestTime:
    """Seconds pytest spent in test calls, over every pytest run this process started (memo hits cost none),
    and how many of those runs timed out.

    Process-wide sums, read before and after a run (``Run`` records the difference) or a macro call (a call
    whose tests timed out is never remembered, see ``macros.call_memo``): a worker runs one benchmark run at
    a time, and a macro's tests run in this process too.
    """

    __test__ = False  # not a test class, whatever pytest thinks of the name
    total: float = 0.0
    timeouts: int = 0
    runs: int = 0
    """pytest runs started (memo hits are none)."""


test_time = TestTime()


@dataclass(frozen=True)
class PytestRun:
    exit_code: int | None
    output: str
    timed_out: bool
    results: dict[str, Any] | None = None
    """Isolated runs only: what the run recorded of every test (see ``isolated_pytest``), or None
    when it recorded nothing (it was ended before pytest returned)."""

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def tail(self, lines: int = OUTPUT_TAIL_LINES) -> str:
        return "\n".join(self.output.rstrip().splitlines()[-lines:])


def run_pytest(
    cwd: Path,
    args: Sequence[str],
    timeout: float,
    *,
    isolated: bool = False,
    sandbox: Sandbox = NO_SANDBOX,
    memo_scope: str = "",
    config: str | None = None,
    laid: Mapping[str, bytes] | None = None,
) -> PytestRun:
    """Run pytest in ``cwd``; a run on byte-identical files with the same arguments is not repeated.

    ``isolated`` is the verifier's way: nothing in ``cwd`` can replace pytest, its plugins or its
    configuration, and the outcomes come from a results file written outside ``cwd`` (see
    ``isolated_pytest``). The agent's ``run_tests`` runs the project's own way, with its config.

    Runs in a benchmark converge: micro, degraded hybrid and a macro that fits end in the same
    workspace, and a macro's validation runs the same suite the agent runs. Tests are meant to
    be deterministic (the benchmark's are), so the memo returns the earlier result; a run that
    timed out is never remembered, since a timeout can be the machine's fault. Runs of different
    ``memo_scope`` never share a result: the verifier's own runs never reuse one the agent started.

    ``config`` is the ini file the run reads in place of the workspace's (a task's ``pytest:`` spec,
    ``core.pytest_spec``); an isolated run without one reads an empty config of ours.

    ``laid`` are the files (relative to ``cwd``) the harness laid for an isolated run alone, the hidden
    tests: the verifier's warm server keeps their asserts rewritten for its next runs (``rewrite_cache``).
    """
    key = _memo_key(cwd, args, timeout, isolated, sandbox, memo_scope, config)
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    result = _run(cwd, args, timeout, isolated, sandbox, config, laid)
    if not result.timed_out:
        _MEMO[key] = result
        if len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
    return result


def remembered(
    cwd: Path,
    args: Sequence[str],
    timeout: float,
    *,
    isolated: bool = False,
    sandbox: Sandbox = NO_SANDBOX,
    memo_scope: str = "",
    config: str | None = None,
) -> PytestRun | None:
    """The result :func:`run_pytest` would give back for this run without making it, where it made it before."""
    return _MEMO.get(_memo_key(cwd, args, timeout, isolated, sandbox, memo_scope, config))


def _memo_key(
    cwd: Path, args: Sequence[str], timeout: float, isolated: bool, sandbox: Sandbox, scope: str, config: str | None
) -> str:
    from ..core.workspace import read_tree, tree_digest

    files = tree_digest(read_tree(cwd))
    settings = repr((sys.executable, list(args), timeout, isolated, sandbox.mode, scope, files, config))
    return hashlib.blake2b(settings.encode(), digest_size=20).hexdigest()


def _run(
    cwd: Path,
    args: Sequence[str],
    timeout: float,
    isolated: bool,
    sandbox: Sandbox,
    config: str | None,
    laid: Mapping[str, bytes] | None = None,
) -> PytestRun:
    options = ["-q", "--no-header", "--tb=short", "-p", "no:cacheprovider", "-p", test_timer.__name__, *args]
    cold = os.environ.get(COLD_ENV) == "1"
    server = None if cold else server_for(cwd, sandbox, partial(_environment, cwd), verifier=isolated)
    laid_at = {str(cwd / rel): data for rel, data in (laid or {}).items()} if isolated else {}
    if server is not None:
        try:
            launch = partial(server.run, timeout=timeout)
            return _run_with(server.scratch, cwd, options, isolated, config, timeout, launch, laid_at)
        finally:
            server.clean()
    with tempfile.TemporaryDirectory(prefix="granularity-pytest-") as scratch, tracked_folder(Path(scratch)):
        launch = partial(_cold, sandbox, timeout)
        return _run_with(Path(scratch), cwd, options, isolated, config, timeout, launch, laid_at)


COLD_ENV = "GRANULARITY_COLD_PYTEST"
"""Set to 1, every pytest run starts a fresh interpreter instead of a warm server's child (``pytest_server``):
what ``scripts/matrix_profile.py --cold`` measures the warm runner against."""

Launch = Callable[[PytestRequest], tuple[bytes, int | None]]
"""Starts one pytest run: its output and exit code (None when it timed out)."""


def _run_with(
    scratch: Path,
    cwd: Path,
    options: list[str],
    isolated: bool,
    config: str | None,
    timeout: float,
    launch: Launch,
    laid: dict[str, bytes],
) -> PytestRun:
    """One run with ``scratch`` as its temporary folder, started by ``launch``, cold or warm alike. What the
    server may keep rewritten: the files set up in the workspace for an agent's run, the ``laid`` hidden
    files for the verifier's (its server is its own, ``pytest_server.VerifierServer``)."""
    results, nonce = scratch / "granularity-results.json", secrets.token_hex(16)
    if isolated or config is not None:
        pytest_args = _config_args(cwd, scratch, config or EMPTY_CONFIG, options)
    else:
        pytest_args = options
    vouched = frozenset(map(digest, laid.values())) if isolated else vouched_for(cwd)
    with marked(_environment(cwd, scratch, isolated)) as mark:
        env = mark.env
        request = PytestRequest(str(cwd), env, pytest_args, isolated, str(results), nonce, vouched, laid)
        output, exit_code = launch(request)
    timed_out = exit_code is None
    text = _stable(output.decode("utf-8", errors="replace"), cwd, scratch)
    recorded = _read_results(results, nonce) if isolated and not timed_out else None
    test_time.total += _test_seconds(Path(env[TIMER_ENV]))
    test_time.runs += 1
    if timed_out:
        test_time.timeouts += 1
        text += f"\n[timed out after {timeout:g}s; process group killed]"
    return PytestRun(exit_code, text, timed_out, recorded)


def _cold(sandbox: Sandbox, timeout: float, request: PytestRequest) -> tuple[bytes, int | None]:
    """A fresh interpreter: ``python -m pytest``, or the ``isolated_pytest`` script with the nonce on stdin."""
    if request.isolated:
        command = [sys.executable, "-s", "-B", str(ISOLATED_SCRIPT), request.results, *request.args]
    else:
        command = [sys.executable, "-m", "pytest", *request.args]
    command = sandbox.command(command, writable=[Path(request.cwd), Path(request.env["TMPDIR"])])
    stdin = f"{request.nonce}\n".encode() if request.isolated else None
    return run_process(command, Path(request.cwd), request.env, timeout, stdin)


def _environment(cwd: Path, scratch: Path, isolated: bool = True) -> dict[str, str]:
    """A run's environment (a warm server starts with an isolated run's: what the interpreter reads at its
    start, the hash seed, bytecode and the import path, is the same for all; each child sets its run's own)."""
    env = dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTEST_DEBUG_TEMPROOT=str(scratch),
        TMPDIR=str(scratch),
    )
    env[TIMER_ENV] = str(scratch / "granularity-test-times")
    for name in _UNSTABLE_ENV:
        env.pop(name, None)
    if isolated:
        env["PYTHONPATH"] = _outside_paths(env.get("PYTHONPATH", ""), cwd)
    return env


def _test_seconds(path: Path) -> float:
    """What the run's ``test_timer`` wrote; nothing when pytest never got to its end."""
    try:
        return max(0.0, float(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return 0.0


def run_process(
    command: Sequence[str], cwd: Path, env: dict[str, str], timeout: float, stdin: bytes | None = None
) -> tuple[bytes, int | None]:
    """Run ``command`` in a new process group, killed whole at the end (and on timeout, Ctrl-C or SIGTERM).

    Returns its output (stdout and stderr together) and its exit code, None when it timed out. What it
    started in a session of its own (``setsid``) is killed too (``interrupts.marked``): it would hold the
    output pipe open, and the run with it, past its timeout.
    """
    with (
        marked(env) as mark,
        subprocess.Popen(
            command,
            cwd=cwd,
            env=mark.env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        ) as process,
        tracked_process(process.pid),
    ):
        try:
            output, _ = process.communicate(stdin, timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            kill_group(process.pid)
            mark.kill()
            output = _drained(process)
            timed_out = True
        finally:
            kill_group(process.pid)
    return output, None if timed_out else process.returncode


DRAIN_SECONDS = 5.0
"""After a timeout's kill, how long the output may take to end: a process that left the run's session and
its mark (``env -i``) could hold the pipe open for ever."""


def _drained(process: subprocess.Popen[bytes]) -> bytes:
    try:
        return process.communicate(timeout=DRAIN_SECONDS)[0]
    except subprocess.TimeoutExpired as exc:
        return exc.output or b""


ISOLATED_SCRIPT = Path(__file__).with_name("isolated_pytest.py")


EMPTY_CONFIG = "[pytest]\n"


def _config_args(cwd: Path, scratch: Path, config: str, options: Sequence[str]) -> list[str]:
    """A run's pytest arguments with a config file of ours (an isolated run's is empty, a task's spec gives its
    own), so the workspace's ``pytest.ini``, ``pyproject.toml``, ``tox.ini`` and ``setup.cfg`` are never read."""
    path = scratch / "granularity-pytest.ini"
    path.write_text(config, encoding="utf-8")
    return ["-c", str(path), f"--rootdir={cwd}", "--color=no", "--code-highlight=no", *options]


def _outside_paths(pythonpath: str, cwd: Path) -> str:
    """``PYTHONPATH`` without entries that are relative or inside ``cwd``: those would put the
    workspace ahead of the installed pytest."""
    keep = [
        p for p in pythonpath.split(os.pathsep) if p and os.path.isabs(p) and not Path(p).resolve().is_relative_to(cwd)
    ]
    return os.pathsep.join(keep)


def _read_results(path: Path, nonce: str) -> dict[str, Any] | None:
    """The run's own record, if it finished writing one that carries this run's nonce."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.pop("nonce", None) != nonce:
        return None
    return data


_UNSTABLE_ENV = (
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_CURRENT_TEST",
    "CI",
    "BUILD_NUMBER",
    "COLUMNS",
    "LINES",
)
"""Variables that change what pytest prints: options and plugins, and ``CI``/``BUILD_NUMBER``,
under which pytest stops truncating assertion output (so a run would cost more tokens on CI)."""

_DURATION = re.compile(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _stable(text: str, cwd: Path, scratch: Path) -> str:
    """Output without what differs between identical runs: durations, object addresses, temporary paths.

    The tests' own temporary files (``tmp_path``, ``tempfile``) go to a scratch folder made for
    this run and removed after it, so they neither litter the machine nor show a varying path.
    """
    text = text.replace(str(scratch), "<tmp>").replace(str(cwd), "<workspace>")
    return normalise_wording(_ADDRESS.sub(" at 0x?", _DURATION.sub("", text)))
