"""The verifier of a served task (``serve-mcp --verify-tests`` or ``--verify-command``): what lets it succeed.

A served task has no hidden verifier of its own, so by default its outcome is ``unverified``. A
team can name one: files or folders of the repository's own tests, or a command. Either runs
when the task finishes in the verify state, under a timeout, in the sandbox the server uses.

The tests are held aside when the server starts, copied out of the repository before any agent
call, and run through the benchmark's verifier (``verify.verify``: copied into the workspace only
for the run, an isolated pytest that no file in the workspace can reconfigure, a canary, every
collected test must pass). So an agent that edits or deletes those tests in the workspace cannot
change its verdict. A command is the team's own check (``make test``, ``npm test``): it runs in
the workspace, in a new process group killed at the end, and exit status 0 accepts.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.errors import InputError
from ..core.tasks import DEFAULT_VERIFIER_TIMEOUT, Task
from ..core.workspace import Workspace, overlay
from ..process.pytest_process import OUTPUT_TAIL_LINES, run_process
from ..process.sandbox import Sandbox
from .verify import Verdict, verify


@dataclass(frozen=True)
class ServedVerifier:
    """Held-aside tests (``tests``) or a command (``command``), and the timeout of one verification."""

    description: str
    tests: Path | None = None
    command: tuple[str, ...] = ()
    timeout: float = DEFAULT_VERIFIER_TIMEOUT

    def judge(self, task: Task, workspace: Workspace, sandbox: Sandbox) -> Verdict:
        """The verdict on ``workspace`` as the task left it."""
        if self.tests is not None:
            return verify(
                dataclasses.replace(task, verifier_tests=self.tests, verifier_timeout=self.timeout), workspace, sandbox
            )
        return _run_command(self.command, workspace.root, self.timeout, sandbox)


def held_tests(source: Path, selection: Sequence[str], into: Path, timeout: float) -> ServedVerifier:
    """Copy each selected test file or folder of ``source`` (relative paths) into ``into``, keeping its path.

    Raises ``InputError`` naming the option and the path when one is absolute, leaves ``source`` or is missing.
    """
    for value in selection:
        pure = PurePosixPath(value)
        target = (source / value).resolve()
        if pure.is_absolute() or ".." in pure.parts or not target.is_relative_to(source):
            raise InputError(f"--verify-tests {value}: must be a path inside the repository, relative to it")
        if not target.exists():
            raise InputError(f"--verify-tests {value}: no such file or folder in {source}")
        if target.is_dir():
            overlay(into / pure, target)
        else:
            (into / pure).parent.mkdir(parents=True, exist_ok=True)
            (into / pure).write_bytes(target.read_bytes())
    return ServedVerifier(f"tests {' '.join(selection)}", tests=into, timeout=timeout)


def command_verifier(command: str, timeout: float) -> ServedVerifier:
    """A command line (split as a shell would, never run by one); ``InputError`` when it is empty or unbalanced."""
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise InputError(f"--verify-command {command!r}: {exc}") from None
    if not argv:
        raise InputError("--verify-command: the command is empty")
    return ServedVerifier(f"command {shlex.join(argv)}", command=argv, timeout=timeout)


def _run_command(argv: tuple[str, ...], root: Path, timeout: float, sandbox: Sandbox) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="granularity-verify-") as scratch:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TMPDIR=scratch)
        command = sandbox.command(list(argv), writable=[root, Path(scratch)])
        try:
            output, exit_code = run_process(command, root, env, timeout)
        except OSError as exc:
            return Verdict(False, "", f"verifier command {argv[0]!r} could not start: {exc.strerror}")
    tail = "\n".join(output.decode("utf-8", errors="replace").rstrip().splitlines()[-OUTPUT_TAIL_LINES:])
    if exit_code is None:
        return Verdict(False, tail, f"verifier timed out after {timeout:g}s")
    if exit_code == 0:
        return Verdict(True, tail)
    return Verdict(False, f"[verifier] {shlex.join(argv)} exited {exit_code}\n{tail}")
