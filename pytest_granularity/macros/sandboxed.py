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
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..interrupts import kill_group, tracked_folder, tracked_process
from .contract import MODULE_PREFIX

if TYPE_CHECKING:
    from .runtime import MacroContext

Message = tuple[str, str]
KINDS = ("ok", "not_text", "macro_error", "outside_write", "error")
READY = b"ready"
START_TIMEOUT_SECONDS = 60.0
CHILD_CODE = "from pytest_granularity.macros.sandboxed import main; main()"
PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)


def call_in_sandbox(function: Callable[[MacroContext], Any], ctx: MacroContext, seconds: float) -> Message | None:
    """Run ``function(ctx)`` in a sandboxed child, killed whole past ``seconds``; None when it timed out."""
    body, modules = _pickled(function, ctx)
    reader, writer = os.pipe()
    with tempfile.TemporaryDirectory(prefix="granularity-macro-") as scratch, tracked_folder(Path(scratch)):
        folders = [Path(source).parent for source in modules.values()]
        command = ctx.sandbox.command(
            [sys.executable, "-c", CHILD_CODE], writable=[ctx.root, Path(scratch)], readable=folders, private_tmp=False
        )
        path = os.pathsep.join(p for p in (PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, TMPDIR=scratch, PYTHONPATH=path)
        with (
            subprocess.Popen(
                command, cwd=ctx.root, env=env, stdin=subprocess.PIPE, pass_fds=[writer], start_new_session=True
            ) as process,
            tracked_process(process.pid),
        ):
            os.close(writer)
            connection = Connection(reader)
            try:
                _send(process, pickle.dumps((writer, modules)) + body)
                return _answer(connection, seconds, process)
            finally:
                kill_group(process.pid)
                connection.close()


def _send(process: subprocess.Popen[bytes], payload: bytes) -> None:
    """Write the call to the child; a child that died first is reported by ``_answer``."""
    assert process.stdin is not None
    try:
        process.stdin.write(payload)
        process.stdin.close()
    except BrokenPipeError:
        pass


def _pickled(function: Callable[[MacroContext], Any], ctx: MacroContext) -> tuple[bytes, dict[str, str]]:
    """The call as a pickle, and the macro runtime files (module name to source) it refers to."""
    buffer = io.BytesIO()
    pickler = _RecordingPickler(buffer)
    pickler.dump((function, ctx))
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


def _answer(connection: Connection, seconds: float, process: subprocess.Popen[bytes]) -> Message | None:
    try:
        if not connection.poll(START_TIMEOUT_SECONDS) or connection.recv_bytes() != READY:
            return "error", f"the sandboxed macro process did not start within {START_TIMEOUT_SECONDS:g}s"
        if not connection.poll(seconds):
            return None
        return _message(connection.recv_bytes())
    except EOFError:
        return "error", f"the macro's process died (exit code {process.wait()})"


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
    """The child: import the runtime files, read the call, say it is ready, run it, answer."""
    from ..sandbox import NO_SANDBOX
    from .contract import import_runtime
    from .runtime import message_of

    stdin = sys.stdin.buffer
    fd, modules = pickle.load(stdin)
    connection = Connection(fd)
    try:
        for name, source in modules.items():
            import_runtime(Path(source), name)
        function, ctx = pickle.load(stdin)
    except Exception as exc:
        connection.send_bytes(READY)
        connection.send_bytes(
            json.dumps(
                ["error", f"the sandboxed process could not load the call: {type(exc).__name__}: {exc}"]
            ).encode()
        )
        return
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    connection.send_bytes(READY)
    message = message_of(function, dataclasses.replace(ctx, sandbox=NO_SANDBOX))
    connection.send_bytes(json.dumps(list(message)).encode())
