"""The sandbox: real hostile code blocked or cleaned up, the same results as without it, and the option."""

from __future__ import annotations

import os
import shutil
import socket
import textwrap
import uuid
from pathlib import Path

import pytest
from conftest import DATA, connected, needs_bwrap

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroContext, invoke, load_macro
from pytest_granularity.macros.registry import BUILTIN_FOLDER
from pytest_granularity.process import sandbox as sandbox_module
from pytest_granularity.process.pytest_process import run_pytest
from pytest_granularity.process.sandbox import BWRAP, NO_SANDBOX
from pytest_granularity.run.contract_checks import _outlived

HOSTILE_TEST = """
import os, socket, subprocess, sys

def attempt(name, action):
    try:
        print(f"{{name}}: {{action()}}")
    except OSError as exc:
        print(f"{{name}}: {{type(exc).__name__}} errno {{exc.errno}}")

def test_hostile():
    attempt("socket", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=5) and "connected")
    attempt("read", lambda: open({secret!r}).read())
    attempt("fork", lambda: subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", {token!r}], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) and "started")
    if {writes}:
        attempt("home", lambda: open(os.path.join(os.path.expanduser("~"), {token!r}), "w").write("x") and "written")
        attempt("tmp", lambda: open("/tmp/" + {token!r}, "w").write("x") and "written")
"""


def hostile_run(tmp_path: Path, listener: socket.socket, sandbox, writes: bool) -> tuple[str, str]:
    token = f"granularity-hostile-{uuid.uuid4().hex}"
    secret = tmp_path / "secret.txt"
    secret.write_text("the hidden verifier's answer")
    ws = tmp_path / "ws"
    ws.mkdir()
    code = HOSTILE_TEST.format(port=listener.getsockname()[1], secret=str(secret), token=token, writes=writes)
    (ws / "test_hostile.py").write_text(code)
    run = run_pytest(ws, ["-s", "test_hostile.py"], 60, sandbox=sandbox)
    assert run.passed, run.output
    return run.output, token


@needs_bwrap
def test_hostile_tests_are_blocked_or_cleaned_up(tmp_path, listener):
    output, token = hostile_run(tmp_path, listener, BWRAP, writes=True)
    assert "socket: ConnectionRefusedError errno 111" in output and not connected(listener)
    assert "read: FileNotFoundError errno 2" in output
    assert "home: OSError errno 30" in output, "the home folder is read-only"
    assert not (Path.home() / token).exists()
    assert "tmp: written" in output, "/tmp is private: the write lands in the sandbox's own /tmp..."
    assert not Path("/tmp", token).exists(), "...and is gone with it"
    assert "fork: started" in output and not _outlived(token), "the PID namespace ends with the run"


def test_without_a_sandbox_the_same_code_reaches_out(tmp_path, listener):
    """The contrast: what the sandbox blocks is really reachable without it (writes left out); only a detached
    process dies with the run all the same, by the mark in its environment (``interrupts.marked``)."""
    output, token = hostile_run(tmp_path, listener, NO_SANDBOX, writes=False)
    try:
        assert "socket: connected" in output and connected(listener)
        assert "read: the hidden verifier's answer" in output
        assert "fork: started" in output and not _outlived(token)
    finally:
        _kill_by_token(token)


def _kill_by_token(token: str) -> None:
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if token.encode() in (proc / "cmdline").read_bytes():
                    os.kill(int(proc.name), 9)
            except OSError:
                continue


def hostile_macro(tmp_path: Path, body: str) -> Path:
    """replace_and_verify, copied, with ``body`` run before its work."""
    folder = tmp_path / "hostile"
    shutil.copytree(
        BUILTIN_FOLDER / "replace-and-verify", folder, ignore=shutil.ignore_patterns("examples", "__pycache__")
    )
    runtime = folder / "runtime.py"
    prelude = "def run(ctx: MacroContext) -> str:\n    import os, socket, subprocess, sys\n" + textwrap.indent(
        textwrap.dedent(body), "    "
    )
    runtime.write_text(runtime.read_text().replace("def run(ctx: MacroContext) -> str:\n", prelude))
    for name in ("SKILL.md", "contract.yaml"):
        path = folder / name
        path.write_text(
            path.read_text()
            .replace("replace-and-verify", "hostile")
            .replace("name: replace_and_verify", "name: hostile")
        )
    return folder


def call_hostile(tmp_path: Path, body: str, sandbox=BWRAP):
    ws_root = tmp_path / "ws"
    ws_root.mkdir(parents=True)
    (ws_root / "a.py").write_text("x = 1\n")
    ctx = MacroContext(Workspace(ws_root), {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}, sandbox=sandbox)
    return invoke(load_macro(hostile_macro(tmp_path, body)), ctx)


@needs_bwrap
@pytest.mark.parametrize("target", ["/tmp/{token}", "~/{token}"])
def test_a_macro_writing_outside_fails_naming_the_path(tmp_path, target):
    path = os.path.expanduser(target.format(token=f"granularity-hostile-{uuid.uuid4().hex}"))
    outcome = call_hostile(tmp_path, f"open({path!r}, 'w').write('escaped')\n")
    assert outcome.failure_class == "executor_exception"
    assert outcome.outside_writes == (path,)
    assert f"tried to write outside its workspace: {path}" in outcome.reason
    assert not os.path.exists(path)


@needs_bwrap
def test_a_macro_has_no_network(tmp_path, listener):
    port = listener.getsockname()[1]
    outcome = call_hostile(tmp_path, f"socket.create_connection(('127.0.0.1', {port}), timeout=5)\n")
    assert (outcome.failure_class, outcome.reason) == (
        "executor_exception",
        "RuntimeError: ConnectionRefusedError: [Errno 111] Connection refused",
    )
    assert not connected(listener)


@needs_bwrap
def test_a_process_a_macro_leaves_behind_is_killed(tmp_path):
    token = f"granularity-hostile-{uuid.uuid4().hex}"
    outcome = call_hostile(
        tmp_path,
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {token!r}], start_new_session=True)\n",
    )
    assert outcome.ok, outcome.reason
    assert not _outlived(token)


@needs_bwrap
def test_a_sandboxed_macro_succeeds_exactly_as_a_forked_one(tmp_path):
    outcomes = [call_hostile(tmp_path / mode.mode, "pass\n", mode) for mode in (NO_SANDBOX, BWRAP)]
    assert [(o.failure_class, o.reason, o.changes) for o in outcomes] == [
        (None, "replaced the text in 1 file(s)", outcomes[0].changes)
    ] * 2


@needs_bwrap
@pytest.mark.parametrize("policy, fault", [("micro", "none"), ("hybrid", "late")])
def test_a_run_gives_the_same_result_sandboxed(fix_add, policy, fault):
    from pytest_granularity.agents.reference import ReferenceAgent
    from pytest_granularity.core.failures import InjectedFault
    from pytest_granularity.run.policies import FIXED_POLICIES
    from pytest_granularity.run.runner import RunSettings, run_task

    def fault_point(point, macro, args, root):
        if point == fault:
            raise InjectedFault(f"injected {point} fault in {macro}")

    results = [
        run_task(
            fix_add, FIXED_POLICIES[policy], fault, RunSettings(agent=ReferenceAgent, sandbox=sandbox), fault_point
        ).to_dict()
        for sandbox in (NO_SANDBOX, BWRAP)
    ]
    for result in results:
        result.pop("macro_log"), result.pop("phases")
    assert results[0] == results[1]
    assert results[0]["outcome"] == "passed"


@pytest.fixture
def project(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    return pytester


def test_bwrap_is_a_usage_error_when_it_cannot_run(project, monkeypatch):
    monkeypatch.setattr(
        sandbox_module, "probe", lambda: "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    )
    result = project.runpytest("tasks", "--granularity=micro", "--granularity-sandbox=bwrap")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--granularity-sandbox=bwrap: bubblewrap (bwrap) is not installed; apt-get install bubblewrap (or choose auto or none)"
        ]
    )


def test_auto_without_bwrap_runs_and_says_so_once(project, monkeypatch):
    monkeypatch.setattr(
        sandbox_module, "probe", lambda: "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    )
    result = project.runpytest("tasks", "--granularity=micro")
    result.assert_outcomes(passed=1)
    line = "sandbox: none: runs are NOT sandboxed (--granularity-sandbox=auto: bubblewrap (bwrap) is not installed; apt-get install bubblewrap)"
    assert result.stdout.str().count(line) == 1


def test_a_bad_ini_value_is_a_usage_error(project):
    project.makeini("[pytest]\ngranularity_sandbox = docker\n")
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*granularity_sandbox: 'docker' is not one of auto, bwrap, none"])


@needs_bwrap
def test_the_report_says_runs_are_sandboxed(project):
    result = project.runpytest("tasks", "--granularity=micro", "--granularity-sandbox=bwrap")
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("sandbox: bwrap (read-only root") == 1


@needs_bwrap
def test_calls_in_one_folder_share_a_server_but_never_state(tmp_path):
    from pytest_granularity.macros import sandboxed

    macro = load_macro(
        hostile_macro(tmp_path, "global LEAK\nassert 'LEAK' not in globals(), 'a call saw an earlier one'\nLEAK = 1\n")
    )
    ws_root = tmp_path / "ws"
    ws_root.mkdir()
    servers, outcomes = [], []
    for _ in range(3):
        (ws_root / "a.py").write_text("x = 1\n")
        ctx = MacroContext(Workspace(ws_root), {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}, sandbox=BWRAP)
        outcomes.append(invoke(macro, ctx))
        servers.append(BWRAP.servers.pool(sandboxed.MacroServer).servers[0].process.pid)
    assert all(o.ok for o in outcomes), [o.reason for o in outcomes]
    assert len(set(servers)) == 1, "one server for the folder, a forked child per call"


@needs_bwrap
def test_a_call_past_its_timeout_takes_the_server_with_it_and_the_next_call_starts_another(tmp_path):
    from pytest_granularity.macros import sandboxed

    folder = hostile_macro(tmp_path, "if (ctx.root / 'slow').exists():\n    import time; time.sleep(60)\n")
    contract = folder / "contract.yaml"
    contract.write_text(contract.read_text().replace("timeout_seconds: ", "timeout_seconds: 1 #"))
    macro = load_macro(folder)
    ws_root = tmp_path / "ws"
    ws_root.mkdir()
    (ws_root / "a.py").write_text("x = 1\n")
    (ws_root / "slow").write_text("")
    args = {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}
    slow = invoke(macro, MacroContext(Workspace(ws_root), args, sandbox=BWRAP))
    first = BWRAP.servers.pool(sandboxed.MacroServer).servers[0]
    assert slow.timed_out and not first.alive
    (ws_root / "slow").unlink()
    fine = invoke(macro, MacroContext(Workspace(ws_root), args, sandbox=BWRAP))
    assert fine.ok, fine.reason
    assert (
        BWRAP.servers.pool(sandboxed.MacroServer).servers[0] is not first
        and BWRAP.servers.pool(sandboxed.MacroServer).servers[0].alive
    )
