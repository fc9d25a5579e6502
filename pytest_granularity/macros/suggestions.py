"""Calls a macro suggests for a task: what its ``applicability.derive`` proposes and its preconditions accept.

A contract may declare ``applicability.derive``: ``derive(prompt, files)`` proposes argument sets
from the prompt and the initial files. The sets that match the macro's parameters and that its
own declared preconditions accept are its *suggested calls* for the task: what the router counts
as evidence that the macro applies, and what a macro phase may offer a caller that cannot work
the arguments out itself.

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

import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType, MappingProxyType
from typing import Any

from ..core.run_folders import tracked_folder
from ..core.schemas import DefinitionError, first_error
from ..core.workspace import Workspace, read_tree, write_tree
from ..process import interrupts
from . import Macro, MacroContext
from .context import MacroError
from .contract import CONTRACT_FILE
from .runtime import MacroTimeout, OutsideWrite, answer_of, start_macro_process

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


Suggestions = dict[str, list[dict[str, Any]]]
"""Per macro name, its suggested calls' arguments, in the order its ``derive`` proposed them."""

OFF, LISTED, CONSTRAINED = "off", "listed", "constrained"
MODES = (OFF, LISTED, CONSTRAINED)
"""How a macro phase offers the suggested calls: not at all; named in each tool's description and as
its parameters' JSON Schema ``examples``; or as the only values its parameters allow (an ``enum``)."""
LISTED_NOTE = "Suggested calls for this task (derived from the request and the files, accepted by the preconditions):"
NONE_NOTE = "No call could be derived for this task from the request and the files: it may not apply."


def offered_schema(macro: Macro, calls: list[dict[str, Any]], mode: str) -> dict[str, Any] | None:
    """``macro``'s tool schema with its suggested calls, as ``mode`` offers them (a macro that derives
    nothing is offered as it is); None when a constrained macro has no call to allow (an empty ``enum``
    allows nothing, and is not valid JSON Schema)."""
    schema = macro.tool_schema()
    if mode == OFF or macro.derive is None:
        return schema
    if mode == CONSTRAINED and not calls:
        return None
    function = schema["function"]
    listing = "\n".join(json.dumps(c, ensure_ascii=False, sort_keys=True) for c in calls)
    function["description"] += f"\n{LISTED_NOTE}\n{listing}" if calls else f"\n{NONE_NOTE}"
    parameters = dict(function["parameters"])
    if mode == CONSTRAINED:
        parameters = {"type": "object", "enum": calls}
    elif calls:
        parameters["examples"] = calls
    function["parameters"] = parameters
    return schema


def suggested_calls(
    prompt: str, files: Mapping[str, bytes], macros: Iterable[Macro], hidden: tuple[Path, ...] = ()
) -> Suggestions:
    """Each macro's suggested calls for this prompt and these files (macros without ``derive`` are left
    out); ``hidden`` are paths the checks must not read (a task's file, verifier and solution)."""
    checked = [m for m in macros if m.derive is not None]
    if not checked:
        return {}
    view = MappingProxyType(dict(files))
    root = Path(tempfile.mkdtemp(prefix="granularity-view-"))
    try:
        with tracked_folder(root):
            write_tree(root, view)
            workspace = Workspace(root)
            return {m.name: _accepted(m, prompt, view, workspace, hidden) for m in checked}
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class Offer:
    """A macro phase's macros as a caller is offered them: in retrieval order, each with its suggested
    calls, as ``mode`` offers them. A suggested call is offered while its preconditions hold."""

    macros: tuple[Macro, ...]
    calls: Suggestions
    mode: str
    prompt: str
    hidden: tuple[Path, ...] = ()

    def schemas(self) -> list[dict[str, Any]]:
        """The macros' tool schemas, less a constrained macro with no call left to allow."""
        schemas = (offered_schema(m, self.calls.get(m.name, []), self.mode) for m in self.macros)
        return [s for s in schemas if s is not None]

    def after(self, name: str, args: dict[str, Any], files: Mapping[str, bytes]) -> Offer:
        """The offer once the call ``name(args)`` has succeeded and left ``files``: it is withdrawn, and so
        is every suggestion whose preconditions no longer hold (what it would replace or move is gone), so a
        caller that cannot tell is left with what still applies, or ``finish``. Nothing new is suggested."""
        suggesting = [m for m in self.macros if self.calls.get(m.name)]
        holding = suggested_calls(self.prompt, files, suggesting, self.hidden)
        kept = {
            macro: [c for c in calls if c in holding.get(macro, []) and (macro, c) != (name, args)]
            for macro, calls in self.calls.items()
        }
        return replace(self, calls=kept)


PART = "applicability.derive"
"""The contract field a check's error names, and the part its process is asked for."""


def _accepted(
    macro: Macro, prompt: str, files: Mapping[str, bytes], view: Workspace, hidden: tuple[Path, ...]
) -> list[dict[str, Any]]:
    """The argument sets ``macro``'s check accepts, asked of a process of its own (the guard every other
    part of a macro runs under, killed past the contract's ``timeout_seconds``): a ``derive`` that loops
    forever would otherwise hang the run that asked."""
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
    verdict: dict[str, Any] = (
        json.loads(answer) if isinstance(answer, str) else {"error": "it answered something that is not text"}
    )
    if "error" in verdict:
        raise ApplicabilityError(where, PART, f"the check of {macro.name} failed: {verdict['error']}")
    if read_tree(view.root) != view.initial:
        raise ApplicabilityError(where, PART, f"the check of {macro.name} changed the files it was shown")
    accepted: list[dict[str, Any]] = verdict["accepted"]
    return accepted


@dataclass(frozen=True)
class _Check:
    """A macro's applicability check as a part its process runs: ``derive`` proposes argument sets
    and the preconditions judge them, under the read-only guard. Its answer is JSON text (what can
    leave the child): ``{"accepted": [...]}``, or ``{"error": ...}`` with what it raised or a
    proposal that is not a JSON object."""

    macro: Macro
    prompt: str
    files: Mapping[str, bytes]
    hidden: tuple[Path, ...]

    def __call__(self, ctx: MacroContext) -> str:
        try:
            with read_only(self.hidden):
                candidates = list(self.macro.derive(self.prompt, self.files))  # type: ignore[misc]
                accepted = [
                    args
                    for args in candidates
                    if first_error(self.macro.parameters, args) is None
                    and not list(self.macro.preconditions(MacroContext(ctx.workspace, dict(args))))
                ]
            return json.dumps({"accepted": accepted})
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
