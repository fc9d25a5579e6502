"""Processes a run starts die with it, however they detach; a detached process never holds a run past its timeout.

A process-group kill misses what calls ``setsid``: it leaves the group, and, holding the output
pipe, kept ``finish`` waiting for ever (round three: ``--verify-command 'setsid sleep 297'``).
Without a sandbox (no PID namespace) every process a run starts carries a mark in its environment
and is killed by it when the run ends (``interrupts.marked``). Each case asserts that no process it
started is left, and that the call returned within its bound.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bad_input_kit import cli, time_bound
from conftest import REPO
from test_mcp_server import session

from pytest_granularity.core.tools import MICRO_TOOLS, call_tool
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.process.tool_context import ToolContext
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.verifier.served_verifier import command_verifier


def _tag() -> str:
    """A sleep length no other process on the machine uses, to find what a case left."""
    return f"297.{secrets.randbelow(10**9):09d}"


def _left(tag: str) -> list[int]:
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if tag.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    left.append(int(entry))
            except OSError:
                continue
    return left


@pytest.fixture
def tag():
    tag = _tag()
    yield tag
    for pid in _left(tag):  # what a failing case left must not outlive it
        os.kill(pid, 9)


def _detaching_test(tag: str) -> str:
    return f"import subprocess\n\ndef test_detach():\n    subprocess.Popen(['setsid', 'sleep', '{tag}'])\n"


def test_a_process_a_verifier_detaches_dies_with_tasks_check(fix_add, capsys, tag):
    (fix_add.verifier_tests / "test_detach.py").write_text(_detaching_test(tag))
    cli(["tasks", "check", "--no-adversaries", "--jobs", "1", str(fix_add.path.parent)], capsys)
    assert not _left(tag), f"WROTE-OUTSIDE: tasks check left {len(_left(tag))} processes running"


def test_a_process_the_agents_tests_detach_dies_with_run_tests(fix_add, tmp_path, tag):
    with Workspace.for_task(fix_add, parent=tmp_path) as ws:
        (ws.root / "tests" / "test_detach.py").write_text(_detaching_test(tag))
        with time_bound():
            call_tool(MICRO_TOOLS["run_tests"], ToolContext(ws), {"paths": ["tests/test_detach.py"]})
    assert not _left(tag), "WROTE-OUTSIDE: run_tests left a process running"


def test_finish_honours_the_verify_timeout_when_the_command_detaches(fix_add, tmp_path, tag):
    root = Workspace.for_task(fix_add, parent=tmp_path).root
    served = session(root, tmp_path, FIXED_POLICIES["micro"], verifier=command_verifier(f"setsid sleep {tag}", 1.0))
    served.call("start_task", {"prompt": fix_add.prompt})
    started = time.monotonic()
    with time_bound(30):
        reply = served.call("finish", {})
    assert time.monotonic() - started < 15, "HANG: finish took past its timeout"
    assert "verifier timed out after 1s" in reply.text, f"UNCLEAR: {reply.text[-300:]!r}"
    assert not _left(tag), "WROTE-OUTSIDE: the verify command's process outlived the call"


INTERRUPTED_AT_EXIT = """
import os, shutil, signal, sys
from pytest_granularity.core.tasks import load_task
from pytest_granularity.core.workspace import Workspace

Workspace.for_task(load_task(sys.argv[1]), reuse=True).remove()  # the folder kept for this process's runs
removal = shutil.rmtree


def interrupted(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the process removes it, at its exit
    return removal(*args, **kwargs)


shutil.rmtree = interrupted
"""


def test_ctrl_c_while_a_process_removes_its_kept_folder_at_exit_leaves_nothing(fix_add, tmp_path):
    """Ctrl-C in an ``-n 2`` session reached the workers as they ended: each printed a KeyboardInterrupt traceback
    from ``remove_kept_folders`` and left its ``granularity-runs-*`` folder in the temporary folder."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_AT_EXIT, str(fix_add.path.parent)],
        env=dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # Ctrl-C's action, as a shell starts it
    )
    assert "Traceback" not in run.stderr, f"TRACEBACK: {run.stderr[-400:]}"
    assert not list(scratch.iterdir()), f"WROTE-OUTSIDE: left {[p.name for p in scratch.iterdir()]}"
