"""A macro's work in a sandboxed subprocess: the launcher, and the child it starts.

A sandbox cannot be entered by a fork of this process, so with one the macro's ``run`` goes to
a fresh Python process inside bubblewrap, which runs ``main`` below. The call (the
function and its context) is pickled to the child's stdin together with the macro runtime
files it needs, which the child imports under the same names first; the function must therefore
be importable by reference (a macro's ``run``, or a module-level function). What comes back is
plain text over a pipe, never a pickle: the child runs untrusted code.

The macro's timeout starts when the child is ready to call it, so the sandbox's start-up does
not eat into the macro's own budget, and a macro times out at the same moment as without it.
Writes outside the workspace fail there (the root, ``/tmp`` and the home folder are read-only)
and come back as ``outside_write`` with the path.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.interrupts import kill_group, tracked_folder, tracked_process
from .contract import MODULE_PREFIX
from .messages import KINDS, RUN_TESTS, Message, answer_with_tests, message_of, tests_over

if TYPE_CHECKING:
    from .context import MacroContext

READY = b"ready"
START_TIMEOUT_SECONDS = 60.0
CHILD_CODE = "from pytest_granularity.macros.sandboxed import main; main()"
PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)


class SandboxedMacro:
    """One call's macro process in the sandbox: started once, then asked for each part in turn.

    The parts (functions) and the context are pickled to the child's stdin; each request is then
    a line naming a part, each answer a message over a pipe. The sandbox's start-up is waited for
    (up to ``START_TIMEOUT_SECONDS``) before the first part's own timeout starts.
    """

    def __init__(self, parts: dict[str, Callable[[MacroContext], Any]], ctx: MacroContext) -> None:
        self._stack = ExitStack()
        body, modules = _pickled(parts, ctx)
        reader, writer = os.pipe()
        scratch = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="granularity-macro-")))
        self._stack.enter_context(tracked_folder(scratch))
        folders = [Path(source).parent for source in modules.values()]
        command = ctx.sandbox.command(
            [sys.executable, "-c", CHILD_CODE], writable=[ctx.root, scratch], readable=folders, private_tmp=False
        )
        path = os.pathsep.join(p for p in (PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=path)
        self.process = self._stack.enter_context(
            subprocess.Popen(
                command, cwd=ctx.root, env=env, stdin=subprocess.PIPE, pass_fds=[writer], start_new_session=True
            )
        )
        self._stack.enter_context(tracked_process(self.process.pid))
        self._stack.callback(kill_group, self.process.pid)
        os.close(writer)
        self.connection = Connection(reader)
        self.ctx = ctx
        self._stack.callback(self.connection.close)
        self._send(pickle.dumps((writer, modules)) + body)
        self.failed_start = _started(self.connection, self.process)

    def _send(self, payload: bytes) -> bool:
        """Write to the child; False when it died first (then ``ask`` reports how)."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(payload)
            self.process.stdin.flush()
            return True
        except BrokenPipeError:
            return False

    def ask(self, part: str, seconds: float) -> Message | None:
        if self.failed_start is not None:
            return self.failed_start
        if not self._send(f"{part}\n".encode()):
            return _died(self.process)
        try:
            message = answer_with_tests(self._receive, self._reply, self.ctx, seconds)
        except EOFError:
            return _died(self.process)
        if message is None:
            kill_group(self.process.pid)
        return message

    def _receive(self, seconds: float) -> Message | None:
        if not self.connection.poll(seconds):
            return None
        return _message(self.connection.recv_bytes())

    def _reply(self, text: str) -> None:
        if not self._send(f"{text}\n".encode()):
            raise EOFError

    def __enter__(self) -> SandboxedMacro:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _started(connection: Connection, process: subprocess.Popen[bytes]) -> Message | None:
    """None when the child said it is ready; else the error every part of the call ends with."""
    try:
        if not connection.poll(START_TIMEOUT_SECONDS):
            return "error", f"the sandboxed macro process did not start within {START_TIMEOUT_SECONDS:g}s"
        ready = connection.recv_bytes()
    except EOFError:
        return _died(process)
    return None if ready == READY else _message(ready)


def _died(process: subprocess.Popen[bytes]) -> Message:
    return "error", f"the macro's process died (exit code {process.wait()})"


def _pickled(parts: dict[str, Callable[[MacroContext], Any]], ctx: MacroContext) -> tuple[bytes, dict[str, str]]:
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


def _message(data: bytes) -> Message:
    """The child's answer, checked: it comes from untrusted code."""
    try:
        kind, value = json.loads(data)
    except ValueError:
        kind, value = None, None
    if kind in KINDS and isinstance(value, str):
        return kind, value
    return "error", "the macro's process sent a malformed answer"


def main() -> None:
    """The child: import the runtime files, read the call, say it is ready, then answer each part asked for."""
    from ..core.sandbox import NO_SANDBOX
    from .contract import import_runtime

    stdin = sys.stdin.buffer
    fd, modules = pickle.load(stdin)
    connection = Connection(fd)
    try:
        for name, source in modules.items():
            import_runtime(Path(source), name)
        parts, ctx = pickle.load(stdin)
    except Exception as exc:
        connection.send_bytes(
            json.dumps(
                ["error", f"the sandboxed process could not load the call: {type(exc).__name__}: {exc}"]
            ).encode()
        )
        return
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
