"""Macro calls remembered: the same call on the same folder is replayed, not made again.

A benchmark's runs converge: the macro, hybrid, heuristic and learned policies of a task make the
same call on the same fresh workspace, and a macro's work (``move_module`` parses and rewrites every
file with libcst) is the dearest part of their runs. A call is a function of the macro, its
arguments and context and the folder's state, as a test run is of its files (``pytest_process``
keeps those too), so the first call's outcome and the folder it left are kept, and a later identical
call on a folder in the same state gets both back: the folder is made what the call left it
(``folder_sync``: the same paths, kinds, bytes, links and modes) and the outcome is the call's, its
``seconds`` too (the macro audit reports what a call costs, not what a replay does).

A faulted run's call is replayed too, up to its fault: the fault points the call reached are
reached again, in order, and one that raises ends the replay as it ended the call (at ``early``
the folder untouched, at ``late`` the macro's work done), with the seconds the call had taken to
get there. So only fault points that touch nothing are replayed around: none, or a run's own
injected fault (``FaultOnce``); while another plugin implements the fault hooks, every call is made.

Only where a replay is exact and the memo has a home: in the folder a process keeps for its runs
(``Workspace.for_task(reuse=True)``), whose copies live beside it and go with it. Never kept: a
call that timed out, died, broke in the harness (``executor_exception``) or was ended by a fault,
whose tests timed out (the machine's doing, maybe), or that left what ``folder_sync`` cannot lay;
never replayed: an ``early`` fault after preconditions that wrote (the replay cannot know that folder).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..core.failures import FailureClass, Fault
from ..core.folder_sync import fingerprint, keep_all, laid_bytes, sync
from ..process.pytest_process import test_time
from .context import MacroContext
from .contract import Macro
from .runtime import FaultOnce, FaultPoint, MacroOutcome, concluded, faulted, invoke, no_faults

MEMO_SIZE = 256
MEMO_BYTES = 256 * 2**20
"""What the kept folders' files may hold in all, per process: a user's task can copy a large repository."""
FOLDER = "macro-calls"
"""Beside the kept workspace folder: the folders remembered calls left."""


@dataclass
class _Trace:
    """The fault points a call reached, each with its seconds into the call, and whether its preconditions wrote
    (the folder had changed by ``early``)."""

    reached: dict[str, float] = field(default_factory=dict)
    wrote_early: bool = False


@dataclass(frozen=True)
class _Kept:
    """A remembered call. It holds the macros it names by identity, so their ids are not reused while it lives."""

    macros: tuple[Macro, ...]
    outcome: MacroOutcome
    folder: Path
    trace: _Trace
    size: int
    """The bytes of the folder's files."""


_MEMO: OrderedDict[str, _Kept] = OrderedDict()


def invoke_remembered(macro: Macro, ctx: MacroContext, fault: FaultPoint = no_faults) -> MacroOutcome:
    """``invoke``, replayed when this call was made on this folder's state before. A replay reaches the fault
    points the call reached, in its order; one that raises ends the replay where it would have ended the call."""
    replayable = ctx.workspace.reused and (fault is no_faults or isinstance(fault, FaultOnce))
    before = fingerprint(ctx.root) if replayable else None
    if before is None:
        return invoke(macro, ctx, fault)
    key = _key(macro, ctx, before)
    kept = _MEMO.get(key)
    if kept is not None and kept.folder.is_dir() and _can_replay(kept, fault):
        _MEMO.move_to_end(key)
        return _replayed(kept, macro, ctx, fault)
    timeouts, trace = test_time.timeouts, _Trace()
    outcome = invoke(macro, ctx, _noting(fault, trace, ctx.root, before))
    if _repeatable(outcome) and test_time.timeouts == timeouts:
        _keep(key, (macro, *ctx.dependencies.values()), outcome, trace, ctx.root)
    return outcome


def _noting(fault: FaultPoint, trace: _Trace, root: Path, before: str) -> FaultPoint:
    started = time.monotonic()

    def point(name: str, macro: str, args: dict[str, Any], workspace: Path) -> None:
        trace.reached[name] = time.monotonic() - started
        if name == Fault.EARLY:
            trace.wrote_early = fingerprint(root) != before
        fault(name, macro, args, workspace)

    return point


def _can_replay(kept: _Kept, fault: FaultPoint) -> bool:
    """Whether a replay ends where the call would: an ``early`` fault that will fire ends the call with the folder
    as it was then, which the replay knows only if the call's preconditions left it as they found it."""
    fires_early = isinstance(fault, FaultOnce) and not fault.fired and fault.point == Fault.EARLY
    return not (fires_early and kept.trace.wrote_early)


def _replayed(kept: _Kept, macro: Macro, ctx: MacroContext, fault: FaultPoint) -> MacroOutcome:
    if fault is no_faults:  # nothing can end it early: no need of the folder as it was
        sync(ctx.root, [kept.folder], keep_all)
        return kept.outcome
    outcome = partial(concluded, macro, ctx, ctx.workspace.files(), time.monotonic())
    for name in (Fault.EARLY, Fault.LATE):
        if name == Fault.LATE:
            sync(ctx.root, [kept.folder], keep_all)
        seconds = kept.trace.reached.get(name)
        if seconds is None:
            continue
        try:
            fault(name, macro.name, ctx.args, ctx.root)
        except Exception as exc:
            return dataclasses.replace(faulted(outcome, exc), seconds=seconds)
    return kept.outcome


def _key(macro: Macro, ctx: MacroContext, state: str) -> str:
    """The call and the folder's ``state`` (its fingerprint)."""
    dependencies = sorted((name, id(d)) for name, d in ctx.dependencies.items())
    arguments = json.dumps(ctx.args, sort_keys=True, default=repr)
    call = (id(macro), dependencies, arguments, ctx.tests, ctx.test_timeout, ctx.sandbox.mode, str(ctx.root), state)
    return hashlib.blake2b(repr(call).encode(), digest_size=20).hexdigest()


def _repeatable(outcome: MacroOutcome) -> bool:
    return not (outcome.timed_out or outcome.injected or outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION)


def _keep(key: str, macros: tuple[Macro, ...], outcome: MacroOutcome, trace: _Trace, root: Path) -> None:
    size = laid_bytes(root)
    if size is None or size > MEMO_BYTES:
        return
    folder = root.parent / FOLDER / key
    shutil.rmtree(folder, ignore_errors=True)
    try:
        shutil.copytree(root, folder, symlinks=True)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    _MEMO[key] = _Kept(macros, outcome, folder, trace, size)
    while len(_MEMO) > MEMO_SIZE or sum(kept.size for kept in _MEMO.values()) > MEMO_BYTES:
        _, dropped = _MEMO.popitem(last=False)
        shutil.rmtree(dropped.folder, ignore_errors=True)
