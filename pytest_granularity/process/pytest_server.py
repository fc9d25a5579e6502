"""A warm pytest: one process per workspace folder that has imported pytest, forking a child per test run.

Every pytest run the harness makes (the agent's ``run_tests``, a macro's validation, the verifier)
used to start a fresh interpreter that imported pytest and its plugins again: about a third of a
second per run here, most of a fast suite's cost. A server started once per workspace folder (the
runner gives every run of a process the same folder, see ``Workspace.for_task``), inside the same
sandbox a cold run would get, imports pytest and its plugins before any workspace path is on
``sys.path`` and forks one child per run. The child sets up what a fresh process would have (its
working folder, environment, ``sys.path``, ``sys.argv``, standard input), runs pytest, finishes as
the interpreter would (threads joined, ``atexit`` handlers run, streams flushed) and exits with
pytest's status; its output reaches the caller over a pipe the server relays, so a run sees and
prints what a cold run does. The child starts from the server's state, never from an earlier run's;
the server freezes what it holds for the garbage collector first, so a child's collections neither
scan nor copy the pages it shares with the server.

What a child runs is agent-written code, so nothing it can do may reach the next run: the server
makes itself non-dumpable, so a sandboxed child (no capabilities) cannot open the server's file
descriptors or memory through ``/proc``; the child closes the server's request and answer pipes;
whatever a run leaves running is killed when it ends (its process group, and with the sandbox
every other process in the sandbox's PID namespace); the run's scratch folder is emptied, and so
is what a fresh sandbox would have thrown away (its private ``/tmp``, ``/dev/shm``, files added to
``/dev``, System V IPC objects; POSIX message queues stay until the server goes). A run
past its timeout takes the server with it (the next run starts a new one), as a cold run's process
group is killed. A child that kills the server ends its own run as a process killed by a signal.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import inspect
import os
import pickle
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING

from ..compat import can_finish_like_an_interpreter, finish_like_an_interpreter, import_pytest_plugins
from .fork_server import READY, ForkServer, kill_leftovers
from .interrupts import kill_group, track_process, untrack_process
from .rewrite_cache import HINTS_BYTES, RewriteCache, hinted

if TYPE_CHECKING:
    from .sandbox import Sandbox

CHILD, OUTPUT, EXIT = b"p", b"o", b"x"
CHUNK = 65536
SERVER_CODE = "import sys; del sys.path[0]; from pytest_granularity.process.pytest_server import serve; serve()"
"""``python -c`` puts the working folder (the workspace) first on ``sys.path``: it goes before any import."""
PRELOADED = (
    "pytest",
    "pytest_granularity.process.isolated_pytest",
    "pdb",
    "difflib",
    "unittest",
    "xml.etree.ElementTree",
)
"""What every run imports: pytest, the isolated runner and what pytest's own plugins import as they load.
Not the ``-p`` plugins a run names (``test_timer``): pytest warns when it cannot rewrite their asserts."""
_PR_SET_DUMPABLE = 4


@dataclass(frozen=True)
class PytestRequest:
    """One run: what a fresh process would be started with. ``results`` and ``nonce`` are an isolated
    run's (see ``isolated_pytest``)."""

    cwd: str
    env: dict[str, str]
    args: list[str]
    isolated: bool
    results: str
    nonce: str
    vouched: frozenset[bytes] = frozenset()
    """Digests of the files whose rewritten asserts the server may keep after this run (``rewrite_cache``)."""
    laid: dict[str, bytes] = field(default_factory=dict)
    """Files the harness laid for this run alone (the hidden verifier's), by path: what the server keeps of
    them is rewritten from these bytes, never from the disk, which the run may change or the harness clear."""


class PytestServer(ForkServer):
    """The warm pytest for one workspace folder, its scratch folder (the runs' ``TMPDIR``) and sandbox."""

    def __init__(self, root: Path, sandbox: Sandbox, environment: Callable[[Path], dict[str, str]]) -> None:
        """``environment`` gives the server's environment for its scratch folder."""
        flag = "1" if sandbox.active else "0"
        argv = [sys.executable, "-s", "-B", "-c", SERVER_CODE, flag]
        super().__init__(root, sandbox, argv, environment, prefix="granularity-pytest-")
        self.alive = self.wait_ready()

    def run(self, request: PytestRequest, timeout: float) -> tuple[bytes, int | None]:
        """Run one pytest; its output and exit code, or None for the exit code when it timed out (the server
        is stopped then)."""
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        group = None  # the child's process group, where it is this process's to kill (no PID namespace)
        try:
            if not self.send(pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)):
                raise EOFError
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.connection.poll(remaining):
                    self.stop(group)
                    return b"".join(chunks), None
                message = self.connection.recv_bytes()
                if message[:1] == CHILD and self.mode == "none":
                    group = int(message[1:])
                    track_process(group)
                elif message[:1] == OUTPUT:
                    chunks.append(message[1:])
                elif message[:1] == EXIT:
                    return b"".join(chunks), int(message[1:])
        except (EOFError, OSError):  # the server died under the run (its child killed it)
            code = self.process.wait()
            self.stop(group)
            return b"".join(chunks), code if code < 0 else -signal.SIGKILL
        finally:
            if group is not None:
                untrack_process(group)

    def clean(self) -> None:
        """Empty the scratch folder for the next run; stop the server when something stayed in it."""
        from ..core.workspace import empty_folder  # not at load: the server imports this module

        self.busy = False
        if self.alive:
            empty_folder(self.scratch)
            if not self.scratch.is_dir() or any(self.scratch.iterdir()):  # gone: an interrupt removed it
                self.stop()

    def stop(self, group: int | None = None) -> None:
        """Kill the server, and the run's process ``group`` when given."""
        if group is not None and not self.stopped and self.owner == os.getpid():
            kill_group(group)
        super().stop()


class VerifierServer(PytestServer):
    """The warm pytest of the verifier's runs in a workspace folder, apart from the one the agent's runs fork
    from: the hidden tests it keeps rewritten are never in the memory of a run an agent or a macro started.
    A verifier run's child does run the workspace's code, which could read them there, but it is a run of the
    tests whose files lie in its own workspace, and nothing it could learn reaches an agent."""


def server_for(
    root: Path, sandbox: Sandbox, environment: Callable[[Path], dict[str, str]], verifier: bool = False
) -> PytestServer | None:
    """A live server for runs in ``root`` (the verifier's own where ``verifier``), marked busy until
    :meth:`PytestServer.clean`: a kept one of the sandbox's that fits, else a new one (the oldest goes). None
    when none could start, where processes cannot fork, or when the one for ``root`` is busy with another
    thread's run: the caller runs pytest cold."""
    if not hasattr(os, "fork") or not can_finish_like_an_interpreter():
        return None
    kind = VerifierServer if verifier else PytestServer
    pool = sandbox.servers.pool(kind)
    server = pool.find(lambda kept: kept.fits(root, sandbox))
    if server is None:
        server = pool.start(lambda: kind(root, sandbox, environment))
        if not server.alive:
            return None
    elif server.busy:
        return None
    server.busy = True
    return server


def serve() -> None:
    """The server: import pytest and its plugins, say ready, then fork a child per request and relay its output.

    Requests come from the harness (trusted) as pickles on standard input; answers go back as plain
    bytes: output chunks, then the exit code. The server never runs a request's code itself.
    """
    sandboxed, answers = sys.argv[1] == "1", Connection(int(sys.argv[2]))
    _non_dumpable()
    _preload()
    base_path = list(sys.path)
    bound = dict.fromkeys([os.getcwd(), os.environ["TMPDIR"], *_bound_in()])
    kept = Kept(folders=tuple(bound), dev=frozenset(os.listdir("/dev")))
    rewrites = RewriteCache()
    gc.freeze()  # what the server holds is never collected in a child: its pages stay shared, not copied
    answers.send_bytes(READY)
    stdin = sys.stdin.buffer
    while True:
        try:
            request = pickle.load(stdin)
        except EOFError:
            return  # the harness is gone
        reader, writer = os.pipe()
        hints_reader, hints_writer = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(reader)
            os.close(hints_reader)
            answers.close()
            child(request, writer, base_path, rewrites, hints_writer)
        os.close(writer)
        os.close(hints_writer)
        answers.send_bytes(CHILD + str(pid).encode())
        while chunk := os.read(reader, CHUNK):
            answers.send_bytes(OUTPUT + chunk)
        os.close(reader)
        _, status = os.waitpid(pid, 0)
        kill_leftovers(pid, sandboxed)
        if sandboxed:
            _clear_sandbox(kept)
        answers.send_bytes(EXIT + str(os.waitstatus_to_exitcode(status)).encode())
        hints = _read_available(hints_reader, HINTS_BYTES)
        if request.vouched:
            rewrites.learn(hints, request.cwd, request.vouched, request.laid)
            gc.freeze()


def _preload() -> None:
    for name in PRELOADED:
        importlib.import_module(name)
    import_pytest_plugins()
    # A failure's traceback looks its source up with inspect.getmodule, which maps every loaded module's
    # file (a realpath each) the first time: done here once, a child maps only the modules it imported.
    inspect.getmodule(_preload.__code__)


def _non_dumpable() -> None:
    """No process without capabilities (a sandboxed child) may open this one's descriptors or memory."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: no sandbox either


def _read_available(fd: int, limit: int) -> bytes:
    """What is in the pipe now, up to ``limit``; never waits (a process the run left may still hold it open)."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, limit)
    except OSError:
        return b""
    finally:
        os.close(fd)


def child(request: PytestRequest, output: int, base_path: list[str], rewrites: RewriteCache, hints: int) -> None:
    """One run, as a fresh ``python -m pytest`` (or ``isolated_pytest``) process would make it; never returns.

    It tells the server, on ``hints``, which test files it rewrote itself (see ``rewrite_cache``)."""
    real_exit = os._exit  # isolated_pytest notes exits by patching it
    misses: list[str] = []
    rewrites.install(misses)
    os.setsid()
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # nor may the run read the server's requests
    os.close(devnull)
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    tempfile.tempdir = None  # tempfile caches the folder it found first
    code = 1
    try:
        code = _pytest_main(request, base_path)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            _tell(hints, hinted(misses))
        finally:
            real_exit(code)


def _tell(fd: int, message: bytes) -> None:
    """Write without waiting: a pipe the run filled itself is its loss, not a hang."""
    try:
        os.set_blocking(fd, False)
        os.write(fd, message)
    except OSError:
        pass


def _pytest_main(request: PytestRequest, base_path: list[str]) -> int:

    import pytest

    from . import isolated_pytest

    args = request.args
    try:
        if request.isolated:
            sys.path[:] = base_path
            sys.argv = [isolated_pytest.__file__, *args]
            code = isolated_pytest.run(request.results, args, request.nonce)
        else:  # ``python -m pytest``: the working folder first, then PYTHONPATH as given
            extra = [os.path.abspath(p) for p in request.env.get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:] = [request.cwd, *(p for p in extra if p not in base_path), *base_path]
            sys.argv = [str(Path(pytest.__file__).with_name("__main__.py")), *args]
            code = pytest.console_main()
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    finish_like_an_interpreter()
    return code


def _exit_status(code: object) -> int:
    """The interpreter's own reading of ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


@dataclass(frozen=True)
class Kept:
    """What a sandboxed server keeps between runs: the folders bound in (the workspace and the scratch folder,
    which the harness empties, and the Python installation where it lies under ``/tmp``) and the entries
    ``/dev`` had when it started."""

    folders: tuple[str, ...]
    dev: frozenset[str]


CLEARED = ("/tmp", "/dev/shm")
"""The sandbox's private folders, emptied after every run."""


def _bound_in(mountinfo: str | None = None) -> list[str]:
    """What the sandbox bound in under the folders it clears (``/proc/self/mountinfo``): not the server's to
    empty. A read-only installation under ``/tmp`` (a checkout and its virtualenv there) would otherwise be
    walked, file by file, after every run."""
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text()
        except OSError:
            mountinfo = ""
    points = [_unescaped(line.split()[4]) for line in mountinfo.splitlines() if len(line.split()) > 4]
    return [p for p in points if any(p.startswith(folder + os.sep) for folder in CLEARED)]


def _unescaped(field: str) -> str:
    """A mountinfo path: the kernel writes space, tab, newline and backslash as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), field)


def _clear_sandbox(kept: Kept) -> None:
    """What a cold run's sandbox threw away with it, and a server's keeps: its private ``/tmp``, ``/dev/shm``,
    files added to ``/dev``, System V shared memory, semaphores and message queues."""
    for folder in CLEARED:
        _empty(folder, kept.folders)
    for entry in set(os.listdir("/dev")) - kept.dev:
        _remove(f"/dev/{entry}")
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, remove in (("shm", libc.shmctl), ("sem", libc.semctl), ("msg", libc.msgctl)):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            remove(int(line.split()[1]), _IPC_RMID, None)


_IPC_RMID = 0


def _empty(folder: str, keep: tuple[str, ...]) -> None:
    """Remove what is in ``folder``, but the ``keep`` folders (bound in: not this server's to remove) and the
    folders that lead to them."""
    try:
        entries = [entry.path for entry in os.scandir(folder)]
    except OSError:
        return
    for path in entries:
        if path in keep:
            continue
        if any(k.startswith(path + os.sep) for k in keep):
            _empty(path, keep)
        else:
            _remove(path)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass  # gone already
