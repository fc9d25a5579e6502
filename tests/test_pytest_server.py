"""The warm test runner: a run forked from a server sees, prints and records what a fresh process does,
starts from the server's state, and cannot reach the server or the next run."""

from __future__ import annotations

import multiprocessing
import pickle
import textwrap
import uuid
from functools import partial
from pathlib import Path

import pytest
from conftest import needs_bwrap

from pytest_granularity.process import pytest_process, pytest_server
from pytest_granularity.process.pytest_process import COLD_ENV, run_pytest
from pytest_granularity.process.pytest_server import PytestServer
from pytest_granularity.process.sandbox import BWRAP, NO_SANDBOX, Sandbox
from pytest_granularity.run.contract_checks import _outlived

SANDBOXES = [pytest.param(NO_SANDBOX, id="none"), pytest.param(BWRAP, id="bwrap", marks=needs_bwrap)]

PROBE = """
import atexit, os, sys, tempfile
import helper

atexit.register(lambda: print("atexit ran in", os.path.basename(sys.argv[0])))

def test_sees_a_fresh_process(tmp_path):
    print("path0", sys.path[0] == os.getcwd(), "tmp", tmp_path, tempfile.gettempdir() == os.environ["TMPDIR"])
    print("helper", helper.__file__, "stdin", repr(sys.stdin.read()))
    assert helper.VALUE == 2

def test_fails():
    assert helper.VALUE + 1 == 4, "a rewritten assert"
"""


def stop_servers() -> None:
    for sandbox in (NO_SANDBOX, BWRAP):
        sandbox.servers.stop()


def kept(sandbox: Sandbox) -> list[PytestServer]:
    return sandbox.servers.pool(PytestServer).servers


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch):
    """Every run here runs (none is answered by the memo of an earlier, identical one), and each test
    starts with no server: a test elsewhere in this process may have left one kept."""
    stop_servers()
    monkeypatch.setattr(pytest_process, "_MEMO", type(pytest_process._MEMO)())
    yield
    stop_servers()


def workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return root


def both_ways(root: Path, args: list[str], monkeypatch, **options) -> tuple[pytest_process.PytestRun, ...]:
    warm = run_pytest(root, args, 60, **options)
    pytest_process._MEMO.clear()
    monkeypatch.setenv(COLD_ENV, "1")
    cold = run_pytest(root, args, 60, **options)
    monkeypatch.delenv(COLD_ENV)
    return warm, cold


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("isolated", [False, True], ids=["run_tests", "verifier"])
def test_a_warm_run_is_a_cold_run(tmp_path, monkeypatch, sandbox, isolated):
    root = workspace(tmp_path, {"helper.py": "VALUE = 2\n", "test_probe.py": PROBE})
    warm, cold = both_ways(root, ["-s", "-rA", "test_probe.py"], monkeypatch, isolated=isolated, sandbox=sandbox)
    assert warm == cold
    assert warm.exit_code == 1 and "a rewritten assert" in warm.output and "atexit ran in" in warm.output
    assert "stdin ''" in warm.output and "tmp <tmp>/" in warm.output
    if isolated:
        assert warm.results is not None and warm.results["outcomes"]["test_probe.py::test_fails"] == "failed"
    else:
        assert "path0 True" in warm.output, "python -m pytest puts the working folder first"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_workspace_that_ends_the_process_is_recorded_as_cold(tmp_path, monkeypatch, sandbox):
    root = workspace(tmp_path, {"test_exit.py": "import os\nos._exit(0)\n"})
    warm, cold = both_ways(root, ["test_exit.py"], monkeypatch, isolated=True, sandbox=sandbox)
    assert warm == cold and warm.results is not None and warm.results["exited"]["file"] == "test_exit.py"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_runs_share_a_server_but_never_state(tmp_path, sandbox):
    root = workspace(
        tmp_path,
        {
            "test_state.py": """
                import os, sys, pytest
                def test_state():
                    print("server", os.getppid(), "seen", hasattr(pytest, "left_here"), "helper" in sys.modules)
                    pytest.left_here = True
                    sys.modules["helper"] = sys
            """
        },
    )
    first = run_pytest(root, ["-s", "test_state.py"], 60, sandbox=sandbox)
    (root / "other.txt").write_text("a change, so the memo does not answer")
    second = run_pytest(root, ["-s", "test_state.py"], 60, sandbox=sandbox)
    assert first.passed and second.passed
    assert "seen False False" in first.output and "seen False False" in second.output
    assert first.output.split("server ")[1].split()[0] == second.output.split("server ")[1].split()[0]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_run_past_its_timeout_takes_the_server_with_it(tmp_path, sandbox):
    token = f"granularity-warm-{uuid.uuid4().hex}"
    root = workspace(
        tmp_path,
        {"test_hang.py": f"import time\ndef test_hang():\n    time.sleep(60)  # {token}\n"},
    )
    run = run_pytest(root, ["test_hang.py"], 2, sandbox=sandbox)
    assert run.timed_out and run.exit_code is None and "[timed out after 2s; process group killed]" in run.output
    assert all(s.process.poll() is not None and not s.scratch.exists() for s in kept(sandbox)), "gone"
    (root / "test_hang.py").write_text("def test_quick():\n    pass\n")
    assert run_pytest(root, ["test_hang.py"], 60, sandbox=sandbox).passed, "the next run starts a new server"


LEAVES = """
import subprocess, sys
def test_leaves_processes():
    for session in (False, {new_session}):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", {token!r}], start_new_session=session)
"""


@pytest.mark.parametrize(
    "sandbox, new_session",
    [
        pytest.param(NO_SANDBOX, False, id="none"),
        pytest.param(BWRAP, True, id="bwrap-even-in-a-session-of-its-own", marks=needs_bwrap),
    ],
)
def test_what_a_run_leaves_running_is_killed(tmp_path, sandbox, new_session):
    token = f"granularity-warm-{uuid.uuid4().hex}"
    root = workspace(tmp_path, {"test_leave.py": LEAVES.format(token=token, new_session=new_session)})
    assert run_pytest(root, ["test_leave.py"], 60, sandbox=sandbox).passed
    assert not _outlived(token)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_run_that_kills_its_server_ends_killed_and_the_next_run_is_served(tmp_path, sandbox):
    root = workspace(tmp_path, {"test_kill.py": "import os\ndef test_kill():\n    os.kill(os.getppid(), 9)\n"})
    run = run_pytest(root, ["test_kill.py"], 60, isolated=True, sandbox=sandbox)
    # The orphaned child may still write its record before it is killed: the exit code is what the verifier
    # checks (judge rejects any run whose pytest did not exit 0), so that is what a run must report.
    assert run.exit_code == -9
    (root / "test_kill.py").write_text("def test_quick():\n    pass\n")
    assert run_pytest(root, ["test_kill.py"], 60, isolated=True, sandbox=sandbox).passed


@needs_bwrap
def test_a_sandboxed_run_cannot_open_its_servers_pipes_or_memory(tmp_path):
    """The server is not dumpable: without capabilities, /proc gives a run nothing of it (a request written
    to its stdin could otherwise make it fake the next verifier's record)."""
    root = workspace(
        tmp_path,
        {
            "test_reach.py": """
                import os
                def test_reach():
                    for name in ("fd/0", "mem", "environ"):
                        try:
                            open(f"/proc/{os.getppid()}/{name}", "rb" if name != "fd/0" else "wb").close()
                            print(name, "opened")
                        except OSError as exc:
                            print(name, type(exc).__name__)
            """
        },
    )
    run = run_pytest(root, ["-s", "test_reach.py"], 60, sandbox=BWRAP)
    assert run.passed, run.output
    assert "fd/0 PermissionError" in run.output and "mem PermissionError" in run.output
    assert "opened" not in run.output


def _run_in_fork(root: str, queue: multiprocessing.Queue) -> None:
    """A multiprocessing child ends without ``atexit``: it stops the server it started, as a pool's worker does."""
    try:
        queue.put(run_pytest(Path(root), ["test_quick.py"], 60).passed)
    finally:
        NO_SANDBOX.servers.stop()


def test_a_forked_process_starts_its_own_server_and_leaves_its_parents_alone(tmp_path):
    root = workspace(tmp_path, {"test_quick.py": "def test_quick():\n    pass\n"})
    assert run_pytest(root, ["test_quick.py"], 60).passed
    (server,) = kept(NO_SANDBOX)
    (root / "other.txt").write_text("a change, so the memo does not answer")
    queue: multiprocessing.Queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_run_in_fork, args=(str(root), queue))
    child.start()
    assert queue.get(timeout=60) is True
    child.join()
    assert server.fits(root, NO_SANDBOX) and server.scratch.is_dir(), "the parent's server outlives the child"


@needs_bwrap
def test_what_a_sandboxed_run_leaves_in_its_private_folders_is_gone_for_the_next(tmp_path):
    """A cold run's sandbox took its /tmp, /dev and IPC objects with it; a server clears them between runs."""
    root = workspace(
        tmp_path,
        {
            "test_leave.py": """
                import ctypes, os
                def test_look_then_leave():
                    seen = [p for p in ("/tmp/left", "/dev/shm/left", "/dev/left") if os.path.exists(p)]
                    print("seen", seen, "segments", len(open("/proc/sysvipc/shm").read().splitlines()) - 1)
                    for path in ("/tmp/left", "/dev/shm/left", "/dev/left"):
                        open(path, "w").write("for the next run")
                    assert ctypes.CDLL(None).shmget(4242, 4096, 0o1666) >= 0
            """
        },
    )
    first = run_pytest(root, ["-s", "test_leave.py"], 60, sandbox=BWRAP)
    (root / "other.txt").write_text("a change, so the memo does not answer")
    second = run_pytest(root, ["-s", "test_leave.py"], 60, sandbox=BWRAP)
    assert first.passed and second.passed, second.output
    assert "seen [] segments 0" in first.output and "seen [] segments 0" in second.output


def test_a_busy_server_is_not_shared(tmp_path):
    """Two runs at once in one folder (threads of a served session): the second runs cold."""
    root = workspace(tmp_path, {})
    environment = partial(pytest_process._environment, root)
    first = pytest_server.server_for(root, NO_SANDBOX, environment)
    assert first is not None and pytest_server.server_for(root, NO_SANDBOX, environment) is None
    first.clean()
    assert pytest_server.server_for(root, NO_SANDBOX, environment) is first


def test_what_the_sandbox_bound_in_under_tmp_is_kept_as_the_kernel_names_it():
    mountinfo = (
        "36 35 98:0 / / ro,relatime - ext4 /dev/root ro\n"
        "40 36 0:33 / /tmp rw - tmpfs tmpfs rw\n"
        "41 40 98:0 /ci/.venv /tmp/ci/.venv ro - ext4 /dev/root ro\n"
        "42 40 98:0 /my\\040project /tmp/my\\040project ro - ext4 /dev/root ro\n"
        "43 36 0:34 / /dev/shm rw - tmpfs tmpfs rw\n"
        "44 36 98:0 /usr /usr ro - ext4 /dev/root ro\n"
    )
    assert pytest_server._bound_in(mountinfo) == ["/tmp/ci/.venv", "/tmp/my project"]


KEPT_FOLDERS = """
import sys

def test_kept_folders():
    frame = sys._getframe()
    while "kept" not in frame.f_locals:
        frame = frame.f_back
    print("FOLDERS", frame.f_locals["kept"].folders)
"""


@needs_bwrap
def test_an_installation_bound_in_under_tmp_is_never_emptied_between_runs(tmp_path, monkeypatch):
    """A checkout and its virtualenv under /tmp are bound in read-only: walking them after every run cost a
    warm run more than it saved."""
    library = tmp_path / "lib"
    library.mkdir()
    monkeypatch.syspath_prepend(str(library))  # the sandbox binds the import path in, read-only
    root = workspace(tmp_path, {"test_kept.py": KEPT_FOLDERS})
    run = run_pytest(root, ["-s", "test_kept.py"], 60, sandbox=BWRAP)
    assert f"'{library}'" in run.output


def test_a_sandboxs_servers_are_its_own_and_end_when_its_session_stops_them(tmp_path):
    root = workspace(tmp_path, {"test_quick.py": "def test_quick():\n    pass\n"})
    mine, other = Sandbox("none"), Sandbox("none")
    assert run_pytest(root, ["test_quick.py"], 60, sandbox=mine).passed
    (server,) = kept(mine)
    assert kept(other) == [] and kept(NO_SANDBOX) == [], "no other sandbox's pool holds it"
    assert pickle.loads(pickle.dumps(mine)).servers.pools == {}, "a sandbox sent elsewhere carries no server"
    mine.servers.stop()
    assert server.process.poll() is not None and not server.scratch.exists() and kept(mine) == []
