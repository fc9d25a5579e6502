"""Evidence, before a run, that a macro applies: two router features from the macro registry.

- ``retrieval_score``: the best BM25 score of any available macro for the prompt (the score
  retrieval ranks macros by; see ``macros.registry``).
- ``applicable_macros``: how many available macros pass their own applicability check. A
  contract may declare ``applicability.derive``: ``derive(prompt, files)`` proposes argument
  sets from the prompt and the initial files; the macro applies when its own declared
  preconditions accept one of them.

Both see only pre-execution evidence: the prompt, the initial workspace files and the registry;
never the verifier, the reference solution or the reference macro call (they are not passed).
``derive`` gets a read-only mapping of the files; the preconditions run on a throw-away copy of
them (a *view*), and both run under a guard (a ``sys.addaudithook`` hook, active only in this
thread while a check runs) that refuses every write, removal, process start and connection, and
every read of the task's hidden paths (its task file, verifier and solution), so a check can
neither change anything nor peek. A view that differs afterwards, or a check that raises, is an
:class:`ApplicabilityError` naming the contract field.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, MappingProxyType
from typing import Any

from ..core import interrupts
from ..core.schemas import DefinitionError, first_error
from ..core.workspace import Workspace, read_tree, write_tree
from ..macros import Macro, MacroContext, MacroRegistry
from ..macros.context import MacroError
from ..macros.contract import CONTRACT_FILE
from ..macros.registry import retrieval_scores
from ..macros.runtime import MacroTimeout, OutsideWrite, answer_of, start_macro_process

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_REFUSED_EVENTS = frozenset(
    {
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.truncate",
        "os.chmod",
        "os.chown",
        "os.link",
        "os.symlink",
        "os.utime",
        "shutil.rmtree",
        "shutil.move",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.kill",
        "os.killpg",
        "os.putenv",
        "os.unsetenv",
        "socket.connect",
        "socket.bind",
    }
)
_guard = threading.local()
_hook_installed = False


class ApplicabilityError(DefinitionError):
    """A macro's applicability check that raised, or tried to change something."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    hidden = getattr(_guard, "hidden", None)
    if hidden is None:
        return
    if event in ("open", "os.listdir", "os.scandir") and _is_hidden(args[0] if args else None, hidden):
        raise PermissionError(f"an applicability check may not read the task's hidden files ({args[0]!r})")
    if event == "open":
        mode, flags = args[1], args[2]
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
        if not writes:
            return
    elif event not in _REFUSED_EVENTS:
        return
    if _handling_interrupt():
        return
    raise PermissionError(f"an applicability check may not change anything ({event} {args[0] if args else ''!r})")


def _handling_interrupt() -> bool:
    """Whether this event comes from the interrupt handler (its clean-up must kill and remove)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code is interrupts._handle.__code__:
            return True
        frame = frame.f_back
    return False


def _is_hidden(path: Any, hidden: tuple[str, ...]) -> bool:
    if not isinstance(path, (str, os.PathLike)):
        return False
    full = os.path.abspath(os.fsdecode(path))
    return any(full == h or full.startswith(h + os.sep) for h in hidden)


@contextmanager
def read_only(hidden: tuple[Path, ...] = ()) -> Iterator[None]:
    """While inside, every write, removal, process start or connection in this thread raises,
    and so does every read under ``hidden``."""
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True
    previous = getattr(_guard, "hidden", None)
    _guard.hidden = tuple(os.path.abspath(p) for p in hidden)
    try:
        yield
    finally:
        _guard.hidden = previous


def retrieval_score(prompt: str, macros: MacroRegistry) -> float:
    return max(retrieval_scores(macros.available(), prompt), default=0.0)


def applicable_macros(
    prompt: str, files: Mapping[str, bytes], macros: MacroRegistry, hidden: tuple[Path, ...] = ()
) -> list[str]:
    """The names of the available macros whose applicability check holds for this prompt and these
    files; ``hidden`` are paths the check must not read (a task's file, verifier and solution)."""
    checked = [m for m in macros.available() if m.derive is not None]
    if not checked:
        return []
    view = MappingProxyType(dict(files))
    root = Path(tempfile.mkdtemp(prefix="granularity-view-"))
    try:
        with interrupts.tracked_folder(root):
            write_tree(root, view)
            workspace = Workspace(root)
            return [m.name for m in checked if _applies(m, prompt, view, workspace, hidden)]
    finally:
        shutil.rmtree(root, ignore_errors=True)


PART = "applicability.derive"
"""The contract field a check's error names, and the part its process is asked for."""


def _applies(macro: Macro, prompt: str, files: Mapping[str, bytes], view: Workspace, hidden: tuple[Path, ...]) -> bool:
    """Whether ``macro``'s check holds, asked of a process of its own (the guard every other part
    of a macro runs under, killed past the contract's ``timeout_seconds``): a ``derive`` that loops
    forever would otherwise hang the run that computes the router's features."""
    where = macro.folder / CONTRACT_FILE
    seconds = float(macro.contract["timeout_seconds"])
    check = _Check(macro, prompt, files, hidden)
    try:
        with start_macro_process({PART: check}, MacroContext(view, {})) as process:
            answer: object = answer_of(process.ask(PART, seconds), seconds)
    except MacroTimeout as exc:
        raise ApplicabilityError(where, PART, f"the check of {macro.name} {exc}") from None
    except (OutsideWrite, RuntimeError, MacroError) as exc:
        raise ApplicabilityError(where, PART, f"the check of {macro.name} failed: {exc}") from None
    if answer not in ("fits", "does not fit"):
        raise ApplicabilityError(where, PART, f"the check of {macro.name} failed: {answer}")
    if read_tree(view.root) != view.initial:
        raise ApplicabilityError(where, PART, f"the check of {macro.name} changed the files it was shown")
    return answer == "fits"


@dataclass(frozen=True)
class _Check:
    """A macro's applicability check as a part its process runs: ``derive`` proposes argument sets
    and the preconditions judge them, under the read-only guard; answers 'fits' or 'does not fit',
    or what it raised (as text, so it can leave the child)."""

    macro: Macro
    prompt: str
    files: Mapping[str, bytes]
    hidden: tuple[Path, ...]

    def __call__(self, ctx: MacroContext) -> str:
        try:
            with read_only(self.hidden):
                candidates = list(self.macro.derive(self.prompt, self.files))  # type: ignore[misc]
                fits = any(
                    first_error(self.macro.parameters, args) is None
                    and not list(self.macro.preconditions(MacroContext(ctx.workspace, dict(args))))
                    for args in candidates
                )
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return "fits" if fits else "does not fit"
