"""What an interrupted run leaves behind: child process groups and throw-away folders.

Every child a run starts (the verifier, the agent's ``run_tests``, a macro's runtime) lives in
its own session, so Ctrl-C at the terminal does not reach it, and every run writes to folders
of its own (its workspace, pytest's scratch). Code that starts such a group or makes such a
folder registers it here; on SIGINT or SIGTERM the handler kills every registered group and
removes every registered folder, then lets the signal take its usual course (SIGINT raises
``KeyboardInterrupt``, SIGTERM ends the process).

The registry is module state on purpose: a signal handler is process-wide, and so is what it
must clean. Entries remember the process that made them, so a forked child (a macro runtime)
never kills or removes what its parent registered. Under pytest-xdist each worker cleans its
own entries: Ctrl-C reaches every worker, and ``die_with_parent`` has the kernel send a worker
SIGTERM when the controller dies of SIGTERM.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

from ..core.run_folders import folders_of, untrack_folder

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG = 1

_groups: dict[int, int] = {}
"""Process group id -> the pid of the process that registered it."""
_marks: dict[str, int] = {}
"""Environment variable marking a run's processes -> the pid of the process that registered it."""
_previous: dict[int, Any] = {}
MARK_PREFIX = "GRANULARITY_RUN_"
KILL_ROUNDS = 100


def track_process(pgid: int) -> None:
    """Kill process group ``pgid`` (a child started with ``start_new_session=True``) on interrupt."""
    _groups[pgid] = os.getpid()


def untrack_process(pgid: int) -> None:
    _groups.pop(pgid, None)


@contextmanager
def tracked_process(pgid: int) -> Iterator[int]:
    track_process(pgid)
    try:
        yield pgid
    finally:
        untrack_process(pgid)


@dataclass(frozen=True)
class Mark:
    """A run's environment with a variable of its own (see :func:`marked`)."""

    name: str
    env: dict[str, str]

    def kill(self) -> None:
        kill_marked(self.name)


@contextmanager
def marked(env: dict[str, str]) -> Iterator[Mark]:
    """``env`` with a variable of its own: every process started with it, and every process those start, however
    it detaches (``setsid``, a double fork: what a process-group kill misses), is killed when the block ends.

    Without cgroups or a PID namespace (no sandbox), the environment is what a descendant keeps: it is
    inherited across fork and exec, and ``/proc/PID/environ`` shows it. A variable per run, not one value,
    so a run inside another run (a verifier running this plugin) carries both marks.
    """
    mark = Mark(f"{MARK_PREFIX}{secrets.token_hex(8)}", {})
    mark.env.update(env, **{mark.name: "1"})
    _marks[mark.name] = os.getpid()
    try:
        yield mark
    finally:
        mark.kill()
        _marks.pop(mark.name, None)


def kill_marked(name: str) -> None:
    """SIGKILL every process whose environment holds ``name`` (see :func:`marked`), until none is left."""
    needle = f"\0{name}=1\0".encode()
    kill_all(lambda: [pid for pid in _pids() if needle in b"\0" + _environ(pid)])


def kill_all(find: Callable[[], list[int]], pause: float = 0.0) -> None:
    """SIGKILL the processes ``find`` lists, round after round (``pause`` apart), until it lists none."""
    for _ in range(KILL_ROUNDS):
        found = find()
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # gone already
        time.sleep(pause)


def _pids() -> list[int]:
    me = os.getpid()
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and int(entry) != me]


def _environ(pid: int) -> bytes:
    """A process's environment as it started, NUL-separated; empty for a zombie or another user's process."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def cleanup() -> None:
    """Kill this process's registered groups and marked processes, then remove its registered folders."""
    me = os.getpid()
    for pgid in [g for g, owner in list(_groups.items()) if owner == me]:
        kill_group(pgid)
        _groups.pop(pgid, None)
    for name in [n for n, owner in list(_marks.items()) if owner == me]:
        kill_marked(name)
        _marks.pop(name, None)
    for folder in folders_of(me):
        shutil.rmtree(folder, ignore_errors=True)
        untrack_folder(folder)


def kill_group(pgid: int) -> None:
    """SIGKILL a whole process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def install() -> bool:
    """Clean up on SIGINT and SIGTERM from now on; False where handlers cannot be set (not the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in SIGNALS:
        current = signal.getsignal(signum)
        if current == signal.SIG_IGN:
            continue  # a background job ignores Ctrl-C: cleaning up and going on would leave runs without folders
        if current is not _handle:
            _previous[signum] = current
            signal.signal(signum, _handle)
    return True


def uninstall() -> None:
    """Give the signals back to the handlers they had before :func:`install`."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum, previous in list(_previous.items()):
        if signal.getsignal(signum) is _handle:
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        del _previous[signum]


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Ask the kernel (Linux) to send ``signum`` when the parent process dies; False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _handle(signum: int, frame: FrameType | None) -> None:
    cleanup()
    previous: Callable[[int, FrameType | None], Any] | int | None = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
