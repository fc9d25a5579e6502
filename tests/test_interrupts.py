"""Interrupts, with real signals: nothing a run started or made outlives a SIGINT or SIGTERM."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_granularity.core import run_folders
from pytest_granularity.process import interrupts

REPO = Path(__file__).parent.parent
HANG = (
    "import os, time\n"
    "def test_hang():\n"
    "    open(os.path.join(os.environ['GRANULARITY_TEST_PIDS'], str(os.getpid())), 'w').close()\n"
    "    time.sleep(120)\n"
)


def _as_typed_at_a_terminal() -> None:
    """Start the command with Ctrl-C's default action, as a shell starts what a user types: an ignored
    SIGINT is inherited across exec, and the test worker's own disposition is not the user's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _wait_for(predicate, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _hanging_tasks(data: Path, count: int) -> Path:
    tasks = data / "tasks"
    (tasks / "fix-add" / "verifier" / "test_verify_fix_add.py").write_text(HANG)
    for index in range(2, count + 1):
        copy = tasks / f"fix-add-{index}"
        shutil.copytree(tasks / "fix-add", copy)
        task_file = copy / "task.yaml"
        task_file.write_text(task_file.read_text().replace("id: fix-add", f"id: fix-add-{index}"))
    return tasks


def _leftovers(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("granularity-"))


@pytest.mark.parametrize(
    ("signum", "workers"),
    [(signal.SIGINT, 0), (signal.SIGTERM, 0), (signal.SIGINT, 2), (signal.SIGTERM, 2)],
    ids=["sigint-serial", "sigterm-serial", "sigint-xdist", "sigterm-xdist"],
)
def test_a_signal_kills_the_verifier_and_removes_run_folders(
    data_copy: Path, tmp_path: Path, signum: int, workers: int
) -> None:
    tasks = _hanging_tasks(data_copy, 2)
    pids, scratch = tmp_path / "pids", tmp_path / "tmp"
    pids.mkdir()
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(scratch), GRANULARITY_TEST_PIDS=str(pids))
    # The verifier leaves its pid outside its workspace, which the sandbox forbids (and inside
    # one a pid is the namespace's); test_sandbox covers what a sandboxed run leaves behind.
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--granularity=micro",
        "--granularity-sandbox=none",
        str(tasks),
    ]
    if workers:
        command += ["-n", str(workers)]
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_as_typed_at_a_terminal,
    )
    try:
        assert _wait_for(lambda: len(list(pids.iterdir())) >= max(workers, 1)), "the verifiers never started"
        assert all(_alive(int(p.name)) for p in pids.iterdir()) and _leftovers(scratch)
        if signum == signal.SIGINT and workers:
            os.killpg(process.pid, signum)  # Ctrl-C at a terminal reaches the whole foreground group
        else:
            process.send_signal(signum)
        output = process.communicate(timeout=60)[0].decode()
        assert len(list(pids.iterdir())) == max(workers, 1), f"the interrupt did not end the session:\n{output}"
        assert _wait_for(lambda: not _running(pids), 10), f"verifiers left running: {_running(pids)}"
        assert _wait_for(lambda: not _leftovers(scratch), 10), f"left behind: {_leftovers(scratch)}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for pid in _running(pids):
            os.kill(pid, signal.SIGKILL)


def _running(pids: Path) -> list[int]:
    return [int(p.name) for p in pids.iterdir() if _alive(int(p.name))]


def test_cleanup_is_limited_to_what_this_process_registered(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    theirs.mkdir()
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        interrupts.track_process(sleeper.pid)
        run_folders.track_folder(mine)
        run_folders._folders[theirs] = os.getpid() + 1  # as a parent would have registered it before a fork
        interrupts.cleanup()
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not mine.exists() and theirs.exists()
    finally:
        run_folders.untrack_folder(theirs)
        interrupts.untrack_process(sleeper.pid)
        sleeper.kill()
        sleeper.wait()


def test_install_chains_to_the_previous_handler_and_uninstall_restores_it() -> None:
    seen: list[int] = []
    sigint = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN when started in the background
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        assert interrupts.install()
        os.kill(os.getpid(), signal.SIGTERM)
        assert _wait_for(lambda: seen == [signal.SIGTERM], 5)
        interrupts.uninstall()
        assert signal.getsignal(signal.SIGINT) is sigint
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_in_tasks_check_is_one_line_and_leaves_nothing(data_copy: Path, tmp_path: Path) -> None:
    """It was a KeyboardInterrupt traceback (round three); the runs' processes and folders go, as in a session."""
    tasks = _hanging_tasks(data_copy, 2)
    pids, scratch = tmp_path / "pids", tmp_path / "tmp"
    pids.mkdir()
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(scratch), GRANULARITY_TEST_PIDS=str(pids))
    command = [sys.executable, "-m", "pytest_granularity.cli", "tasks", "check", "--jobs", "1", "--no-adversaries"]
    process = subprocess.Popen(
        [*command, "--sandbox", "none", str(tasks)],
        preexec_fn=_as_typed_at_a_terminal,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert _wait_for(lambda: any(pids.iterdir())), "the verifier never started"
        process.send_signal(signal.SIGINT)
        err = process.communicate(timeout=60)[1].decode()
        assert "Traceback" not in err, f"TRACEBACK: {err[-400:]}"
        assert err.splitlines()[-1] == "granularity tasks check: interrupted after 0 of 2 tasks", f"UNCLEAR: {err}"
        assert process.returncode == 130
        assert _wait_for(lambda: not _running(pids), 10), f"verifiers left running: {_running(pids)}"
        assert _wait_for(lambda: not _leftovers(scratch), 10), f"left behind: {_leftovers(scratch)}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for pid in _running(pids):
            os.kill(pid, signal.SIGKILL)
