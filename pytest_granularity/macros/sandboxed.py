"""A macro's work in the sandbox: a server per workspace folder, and one forked child per call.

A sandbox cannot be entered by a fork of this process, so with one a macro's code goes to a
Python process inside bubblewrap. Starting one per call cost a fifth of a second (interpreter,
the macro kit and libcst imported again), so one server process is started per workspace folder
and kept (the runner gives every run of a process the same folder, see ``Workspace.for_task``):
it imports the macros' runtime files as calls name them, and forks one child per call, so a
call starts from the server's state, never from an earlier call's. The call (the functions and
their context) is pickled to the server's stdin with the runtime files it needs; the function
must be importable by reference (a macro's ``run``, or a module-level function). What comes back
is plain text over a pipe, never a pickle: the child runs untrusted code.

The macro's timeout starts when the child is ready to call it, so the sandbox's start-up does
not eat into the macro's own budget. A part past its timeout kills the server with the child
(the next call starts a new one); whatever a call leaves running is killed when it ends. Writes
outside the workspace fail there (the root, ``/tmp`` and the home folder are read-only) and come
back as ``outside_write`` with the path; each call gets a temporary folder of its own, removed
when it ends.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pickle
import sys
import tempfile
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.workspace import empty_folder
from ..process.fork_server import READY, START_TIMEOUT_SECONDS, ForkServer, kill_leftovers
from .contract import MODULE_PREFIX
from .messages import KINDS, RUN_TESTS, PipeMessage, answer_with_tests, message_of, tests_over

if TYPE_CHECKING:
    from ..process.sandbox import Sandbox
    from .context import MacroContext, Parts

DONE = b"done"
"""What the server sends when a call's child is gone, with its exit code: read in place of an answer, it says
the child died in the part (``os._exit`` in the macro's code), and the server waits for the next call."""
SERVER_CODE = "from pytest_granularity.macros.sandboxed import serve; serve()"
PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)


class MacroServer(ForkServer):
    """The sandboxed process that forks a child per macro call, for one workspace folder."""

    def __init__(self, sandbox: Sandbox, root: Path, readable: frozenset[Path]) -> None:
        def environment(scratch: Path) -> dict[str, str]:
            path = os.pathsep.join(p for p in (PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")) if p)
            return dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=path)

        argv = [sys.executable, "-c", SERVER_CODE]
        super().__init__(
            root,
            sandbox,
            argv,
            environment,
            prefix="granularity-macro-",
            readable=readable,
            private_tmp=False,
            quiet=False,
        )

    def fits(self, root: Path, sandbox: Sandbox, readable: frozenset[Path] = frozenset()) -> bool:
        return super().fits(root, sandbox) and readable <= self.readable


def server_for(sandbox: Sandbox, root: Path, readable: frozenset[Path]) -> MacroServer:
    """A live server of the sandbox's for calls in ``root``: a kept one that fits, else a new one (the oldest
    goes); one for this folder that lacks a readable folder is replaced by one reading the union."""
    pool = sandbox.servers.pool(MacroServer)
    server = pool.find(lambda kept: kept.fits(root, sandbox, readable))
    if server is not None:
        return server
    for kept in pool.servers:
        if kept.root == root:
            readable |= kept.readable
    return pool.start(lambda: MacroServer(sandbox, root, readable), replaces=lambda kept: kept.root == root)


class SandboxedMacro:
    """One call's macro process in the sandbox: a child forked by the server, asked for each part in turn.

    The parts (functions) and the context go to the server's stdin as a pickle; each request is
    then a line naming a part, each answer a message over a pipe. The server's start-up and the
    fork are waited for (up to ``START_TIMEOUT_SECONDS``) before the first part's own timeout starts.
    """

    def __init__(self, parts: Parts, ctx: MacroContext) -> None:
        body, modules = _pickled(parts, ctx)
        readable = frozenset(Path(source).parent for source in modules.values())
        self.server = server_for(ctx.sandbox, ctx.root, readable)
        self.ctx = ctx
        frame = pickle.dumps(modules) + body
        sent = self.server.send(frame)
        self.failed_start = _started(self.server) if sent else _died(self.server)
        self.ended: PipeMessage | None = None
        """How the child ended when it died in a part: every later part ends so, and the call is over."""

    def ask(self, part: str, seconds: float) -> PipeMessage | None:
        if self.failed_start is not None or self.ended is not None:
            return self.failed_start or self.ended
        if not self.server.send(f"{part}\n".encode()):
            return _died(self.server)
        try:
            message = answer_with_tests(self._receive, self._reply, self.ctx, seconds)
        except EOFError:
            return _died(self.server)
        if message is None:
            self.server.stop()  # the child past its timeout, and the server with it
        return message

    def _receive(self, seconds: float) -> PipeMessage | None:
        if not self.server.connection.poll(seconds):
            return None
        data = self.server.connection.recv_bytes()
        if data.startswith(DONE):
            self.ended = "error", f"the macro's process died (exit code {data[len(DONE) :].decode().strip()})"
            return self.ended
        return _message(data)

    def _reply(self, text: str) -> None:
        if not self.server.send(f"{text}\n".encode()):
            raise EOFError

    def __enter__(self) -> SandboxedMacro:
        return self

    def __exit__(self, *exc: object) -> None:
        """End the call: the child exits at the empty line, and the server says when it is gone."""
        server = self.server
        if not server.alive or self.ended is not None:
            return  # the server is waiting for the next call already
        try:
            ended = server.send(b"\n") and _until(server.connection, DONE)
        except EOFError:
            ended = False
        if not ended:
            server.stop()


def _until(connection: Connection, marker: bytes) -> bool:
    """Drop what a call left unread (answers past a failed part) until the server's ``marker``."""
    while connection.poll(START_TIMEOUT_SECONDS):
        if connection.recv_bytes().startswith(marker):
            return True
    return False


def _started(server: MacroServer) -> PipeMessage | None:
    """None when the call's child said it is ready; else the error every part of the call ends with."""
    try:
        if not server.connection.poll(START_TIMEOUT_SECONDS):
            server.stop()
            return "error", f"the sandboxed macro process did not start within {START_TIMEOUT_SECONDS:g}s"
        ready = server.connection.recv_bytes()
    except EOFError:
        return _died(server)
    return None if ready == READY else _message(ready)


def _died(server: MacroServer) -> PipeMessage:
    code = server.process.wait()
    server.stop()
    return "error", f"the macro's process died (exit code {code})"


def _pickled(parts: Parts, ctx: MacroContext) -> tuple[bytes, dict[str, str]]:
    """The call as a pickle, and the macro runtime files (module name to source) it refers to."""
    buffer = io.BytesIO()
    pickler = _RecordingPickler(buffer)
    pickler.dump((parts, ctx))
    return buffer.getvalue(), pickler.modules


class _RecordingPickler(pickle.Pickler):
    """Notes every macro runtime module whose functions it pickles, so the child can import them first."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.modules: dict[str, str] = {}

    def reducer_override(self, obj: Any) -> Any:
        module = getattr(obj, "__module__", None)
        if callable(obj) and isinstance(module, str) and module.startswith(MODULE_PREFIX) and module in sys.modules:
            self.modules[module] = str(sys.modules[module].__file__)
        return NotImplemented


def _message(data: bytes) -> PipeMessage:
    """The child's answer, checked: it comes from untrusted code."""
    try:
        kind, value = json.loads(data)
    except ValueError:
        kind, value = None, None
    if kind in KINDS and isinstance(value, str):
        return kind, value
    return "error", "the macro's process sent a malformed answer"


def serve() -> None:
    """The server: for each call, import its runtime files, read the call, fork a child for it, wait for the child.

    The server reads the whole call itself (its buffer must hold nothing the child consumed), and
    the runtime files it imports stay imported for later calls: only the fork is paid per call.
    """
    stdin = sys.stdin.buffer
    connection, scratch = Connection(int(sys.argv[1])), os.environ["TMPDIR"]
    calls = 0
    while True:
        try:
            modules = pickle.load(stdin)
        except EOFError:
            return  # the plugin's process is gone
        calls += 1
        folder, code = Path(scratch) / f"call-{calls}", 0
        try:
            parts, ctx = _load_call(stdin, modules)
        except Exception as exc:
            problem = f"the sandboxed process could not load the call: {type(exc).__name__}: {exc}"
            connection.send_bytes(json.dumps(["error", problem]).encode())
            _skip_requests(stdin)
        else:
            pid = os.fork()
            if pid == 0:
                _call(connection, parts, ctx, folder)
                os._exit(0)
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            kill_leftovers(None, sandboxed=True)
            empty_folder(Path(scratch))  # the call's folder, and anything it put beside it
        connection.send_bytes(DONE + f" {code}".encode())


def _load_call(stdin: Any, modules: dict[str, str]) -> tuple[Parts, MacroContext]:
    from .contract import import_runtime

    for name, source in modules.items():
        import_runtime(Path(source), name)
    parts, ctx = pickle.load(stdin)
    return parts, ctx


def _call(connection: Connection, parts: Parts, ctx: MacroContext, folder: Path) -> None:
    """The child: say it is ready, then answer each part asked for until an empty line."""
    from ..process.sandbox import NO_SANDBOX

    folder.mkdir()
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # tempfile caches the folder it found first
    requests = os.fdopen(os.dup(0), "rb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the macro's code reads nothing of the requests
    connection.send_bytes(READY)
    runner = tests_over(
        lambda paths: connection.send_bytes(json.dumps([RUN_TESTS, paths]).encode()),
        lambda: requests.readline().decode(),
    )
    ctx = dataclasses.replace(ctx, sandbox=NO_SANDBOX, tests_runner=runner)
    while part := requests.readline().strip().decode():
        connection.send_bytes(json.dumps(list(message_of(parts[part], ctx))).encode())


def _skip_requests(stdin: Any) -> None:
    """After a call that could not start, read up to its empty line, so the next call starts clean."""
    while (line := stdin.readline()) and line.strip():
        pass
