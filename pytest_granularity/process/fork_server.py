"""A kept process per workspace folder that forks a child per request: the warm pytest (``pytest_server``) and
the sandboxed macro process (``macros/sandboxed``) are both one.

Starting a process per request (an interpreter, inside the sandbox, importing pytest or the macro kit again)
cost a fifth to a third of a second. A server is started once per workspace folder (the runner gives every
run of a process the same folder, see ``Workspace.for_task``), inside the sandbox a cold start would get,
with a scratch folder of its own (the requests' ``TMPDIR``), and forks one child per request, so a request
starts from the server's state, never from an earlier one's. It answers over a pipe whose descriptor is its
last argument. A server past a request's timeout is stopped with its child (the next request starts a new
one); whatever a request leaves running is killed when it ends (:func:`kill_leftovers`).

The servers a session keeps are a :class:`ServerPool` its sandbox holds (``Sandbox.servers``): the session
that made the sandbox stops them when it ends. A forked process (``tasks check --jobs``) inherits the pool,
never the servers: it starts its own.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..core.run_folders import track_folder, untrack_folder
from .interrupts import kill_all, kill_group, track_process, untrack_process

if TYPE_CHECKING:
    from .sandbox import Sandbox

READY = b"ready"
"""What a server (or the child a request forked) sends when it can take the request."""
START_TIMEOUT_SECONDS = 60.0
"""The most a server's start-up, or a child's, is waited for."""
KEPT_SERVERS = 2
"""Servers kept per pool, most recent first: the runs' folder's survives runs made in another folder in
between (a contract check's, a served MCP session's)."""


class ForkServer:
    """One server process for one workspace folder, its scratch folder and its sandbox."""

    def __init__(
        self,
        root: Path,
        sandbox: Sandbox,
        argv: Sequence[str],
        environment: Callable[[Path], dict[str, str]],
        *,
        prefix: str,
        readable: frozenset[Path] = frozenset(),
        private_tmp: bool = True,
        quiet: bool = True,
    ) -> None:
        """``argv`` starts the server (the answer pipe's descriptor is appended); ``environment`` gives its
        environment for its scratch folder; ``quiet`` sends its own output nowhere."""
        self.root, self.readable, self.mode, self.owner = root, readable, sandbox.mode, os.getpid()
        self.stopped, self.busy = False, False
        self.scratch = Path(tempfile.mkdtemp(prefix=prefix))
        track_folder(self.scratch)
        reader, writer = os.pipe()
        command = sandbox.command(
            [*argv, str(writer)], writable=[root, self.scratch], readable=readable, private_tmp=private_tmp
        )
        self.process = subprocess.Popen(
            command,
            cwd=root,
            env=environment(self.scratch),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL if quiet else None,
            stderr=subprocess.DEVNULL if quiet else None,
            pass_fds=[writer],
            start_new_session=True,
        )
        track_process(self.process.pid)
        os.close(writer)
        self.connection = Connection(reader)
        self.alive = True

    def fits(self, root: Path, sandbox: Sandbox) -> bool:
        """Alive (not killed from outside: an interrupt, a session's end) and for this folder and sandbox."""
        return self.alive and self.process.poll() is None and self.root == root and self.mode == sandbox.mode

    def wait_ready(self) -> bool:
        """Wait for the server's ``READY``; stopped (False) when it died or did not say it in time."""
        try:
            if self.connection.poll(START_TIMEOUT_SECONDS) and self.connection.recv_bytes() == READY:
                return True
        except (EOFError, OSError):
            pass  # it died starting: no server
        self.stop()
        return False

    def send(self, payload: bytes) -> bool:
        """Write to the server; False when it died first."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(payload)
            self.process.stdin.flush()
            return True
        except BrokenPipeError:
            return False

    def stop(self) -> None:
        """Kill the server's process group, close its pipes and remove its scratch folder (only from the
        process that started it: a forked process inherits the object, not the server)."""
        self.alive = False
        if self.stopped or self.owner != os.getpid():
            return
        self.stopped = True
        kill_group(self.process.pid)
        self.process.wait()
        untrack_process(self.process.pid)
        self.connection.close()
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass  # what was left unsent has nowhere to go
        shutil.rmtree(self.scratch, ignore_errors=True)
        untrack_folder(self.scratch)


S = TypeVar("S", bound=ForkServer)


class ServerPool(Generic[S]):
    """The servers of one kind a session keeps, most recent first, at most ``KEPT_SERVERS``."""

    def __init__(self) -> None:
        self.servers: list[S] = []

    def find(self, fits: Callable[[S], bool]) -> S | None:
        """A kept server of this process that ``fits``, made the most recent."""
        self.servers[:] = [s for s in self.servers if s.owner == os.getpid()]
        for server in self.servers:
            if fits(server):
                self.servers.remove(server)
                self.servers.insert(0, server)
                return server
        return None

    def start(self, make: Callable[[], S], replaces: Callable[[S], bool] = lambda server: False) -> S:
        """A new server from ``make``, kept when it is alive: the servers it ``replaces`` and the dead ones go
        first, then the oldest while the pool is full."""
        for server in [s for s in self.servers if replaces(s) or not s.alive or s.process.poll() is not None]:
            self.servers.remove(server)
            server.stop()
        while len(self.servers) >= KEPT_SERVERS:
            self.servers.pop().stop()
        server = make()
        if server.alive:
            self.servers.insert(0, server)
        return server

    def stop(self) -> None:
        while self.servers:
            self.servers.pop().stop()


class Servers:
    """A sandbox's pools, one per kind of server; the session that made the sandbox stops them."""

    def __init__(self) -> None:
        self.pools: dict[type[ForkServer], ServerPool[Any]] = {}
        atexit.register(self.stop)  # a session that ends without stopping them (a crash) still leaves none

    def pool(self, kind: type[S]) -> ServerPool[S]:
        return self.pools.setdefault(kind, ServerPool())

    def stop(self) -> None:
        for pool in self.pools.values():
            pool.stop()

    def __reduce__(self) -> tuple[Any, ...]:
        """Sent to another process (in a pickled sandbox), they arrive empty: servers are their starter's."""
        return (type(self), ())


def kill_leftovers(group: int | None, sandboxed: bool) -> None:
    """In a server, after a request's child ended: kill what it left running, its process ``group`` when given,
    and ``sandboxed`` (a PID namespace of its own) every process but the server and the sandbox's init, until
    none is left."""
    if group is not None:
        kill_group(group)
    if not sandboxed:
        return
    keep = {os.getpid(), os.getppid(), 1}
    kill_all(lambda: [pid for pid in _living() if pid not in keep], pause=0.001)  # the sandbox's init reaps them


def _living() -> list[int]:
    """The processes this one sees, less zombies (killed, not yet reaped)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue  # gone already
            if state != "Z":
                pids.append(int(entry))
    return pids
