"""Where agent-written code runs: a bubblewrap sandbox, or (without one) as the user.

The agent's ``run_tests``, the macros' validation runs, the verifier and every macro's work run
code a model may have written. With ``bwrap`` each of those processes sees the root file system
read-only, only its workspace (less its ``.git`` and virtual environments) and its per-run
scratch folder writable, a private ``/tmp``, an empty read-only home folder, no network (its own
network namespace, loopback only), its own PID namespace (so nothing it starts outlives it) and
no capabilities, and it dies with its parent. An agent host runs in it too, with the caller's
network and home folder (``command(host=True)``).
Paths are bound at their own names, so a run sees the same paths, and prints the same output,
as without the sandbox: the sandbox changes what code can reach, never what a run sees.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..core.errors import GranularityError
from ..core.workspace import VENV_MARKER
from .fork_server import Servers

MODES = ("auto", "bwrap", "none")
PROBE_TIMEOUT_SECONDS = 30.0
ISOLATION = (
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
)
"""No network, own PID and IPC namespaces, killed when the caller dies, no controlling terminal,
no capabilities (as root, bwrap would otherwise keep them, and with them a way to remount)."""


class SandboxUnavailable(GranularityError):
    """``bwrap`` was asked for and bubblewrap cannot run here; the message names the option, says why and
    what else to choose."""


@dataclass(frozen=True)
class Sandbox:
    """How to start agent-written code: ``bwrap`` or ``none``; ``note`` says why a run is not sandboxed."""

    mode: str
    note: str = ""
    servers: Servers = field(default_factory=Servers, compare=False, repr=False)
    """The warm servers started in this sandbox (``fork_server``): the session that made it stops them."""

    @property
    def active(self) -> bool:
        return self.mode == "bwrap"

    def command(
        self,
        argv: Sequence[str],
        writable: Iterable[Path],
        readable: Iterable[Path] = (),
        private_tmp: bool = True,
        host: bool = False,
    ) -> list[str]:
        """``argv`` wrapped in the sandbox (unchanged without one).

        ``writable`` folders (the workspace, the scratch folder) are the only ones it may
        change, less what :func:`read_only_inside` names in them. ``/tmp`` and the home folder
        are hidden; what Python needs from them (its prefix, ``sys.path``) and ``readable``
        folders are bound back read-only. ``private_tmp=False`` makes ``/tmp`` read-only too, so
        that a write there fails instead of vanishing.

        ``host`` is for an agent host (``agents/host_agent``): it keeps the caller's network, because it
        reaches the metering proxy and our relay on 127.0.0.1 (a network namespace of its own has a
        loopback of its own, where neither listens), and the home folder stays visible, read-only, since
        a host reads its installation and settings there.
        """
        if not self.active:
            return list(argv)
        hidden = ["/tmp"] if host else _hidden_roots()
        mounts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for root in hidden:
            mounts += ["--tmpfs", root]
        write = _outermost(Path(p).resolve() for p in writable)
        for path in _outermost(
            p for p in (*_python_paths(), *(Path(os.path.realpath(r)) for r in readable)) if _under_any(p, hidden)
        ):
            if not _under_any(str(path), [str(w) for w in write]):
                mounts += ["--ro-bind", str(path), str(path)]
        for path in write:
            mounts += ["--bind", str(path), str(path)]
            for kept in read_only_inside(path):
                mounts += ["--ro-bind", str(kept), str(kept)]
        for root in hidden:
            if root != "/tmp" or not private_tmp:
                mounts += ["--remount-ro", root]
        isolation = [option for option in ISOLATION if not (host and option == "--unshare-net")]
        return ["bwrap", *mounts, *isolation, "--", *argv]

    def describe(self) -> str:
        """The one line the report starts with: whether runs were sandboxed, and if not, why."""
        if self.active:
            return (
                "sandbox: bwrap (read-only root, writable workspace and scratch, private /tmp, no network, "
                "own PID namespace)"
            )
        return f"sandbox: none: runs are NOT sandboxed ({self.note or 'no sandbox was asked for'})"


NO_SANDBOX = Sandbox("none")
BWRAP = Sandbox("bwrap")


def select(mode: str, option: str = "--granularity-sandbox") -> Sandbox:
    """The sandbox for ``option=mode``; ``bwrap`` raises SandboxUnavailable when it cannot run."""
    if mode == "none":
        return Sandbox("none", f"{option}=none")
    problem = probe()
    if problem is None:
        return Sandbox("bwrap")  # its own servers, which the session that asked for it stops
    if mode == "bwrap":
        raise SandboxUnavailable(f"{option}=bwrap: {problem} (or choose auto or none)")
    return Sandbox("none", f"{option}=auto: {problem}")


@lru_cache(maxsize=1)
def probe() -> str | None:
    """Why bwrap cannot sandbox a Python process on this machine, or None when it can (asked once per process)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    with tempfile.TemporaryDirectory(prefix="granularity-probe-") as scratch:
        command = BWRAP.command([sys.executable, "-c", "pass"], writable=[Path(scratch)])
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS, cwd=scratch)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap could not start: {exc}"
    if run.returncode != 0:
        detail = (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
        return f"bwrap cannot create a sandbox here: {detail}"
    return None


def read_only_inside(folder: Path) -> list[Path]:
    """What a writable folder holds at its top that code run there must not change: version-control metadata
    (a hook or ``core.fsmonitor`` is a command the user's next ``git`` runs) and virtual environments (a ``.pth``
    file there runs at every start of their Python). A repository served in place holds both; the tools refuse
    their paths (``Workspace.resolve``), and these binds hold the code the agent's tests run to the same."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [p for p in entries if not p.is_symlink() and (p.name == ".git" or (p / VENV_MARKER).is_file())]


def _hidden_roots() -> list[str]:
    """``/tmp`` (other runs' workspaces) and the home folder (keys, tokens, configuration)."""
    roots = ["/tmp"]
    home = os.path.realpath(os.path.expanduser("~"))
    if home not in ("/", "/tmp") and os.path.isdir(home):
        roots.append(home)
    return roots


def _python_paths() -> list[Path]:
    """What a Python subprocess needs to read: the interpreter, its prefixes, its import path, this package."""
    names = [
        sys.executable,
        os.path.realpath(sys.executable),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
    ]
    names += [p for p in sys.path if p]
    names += os.environ.get("PYTHONPATH", "").split(os.pathsep)
    names.append(str(Path(__file__).resolve().parents[2]))
    paths = []
    for name in names:
        if name and os.path.exists(name):
            path = Path(os.path.realpath(name))
            paths.append(path if path.is_dir() else path.parent)
    return paths


def _under_any(path: Path | str, roots: Sequence[str]) -> bool:
    return any(os.path.commonpath([str(path), root]) == root for root in roots)


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths without those inside another one, sorted: one bind covers its subfolders."""
    kept: list[Path] = []
    for path in sorted(set(paths)):
        if not kept or not _under_any(path, [str(kept[-1])]):
            kept.append(path)
    return kept
