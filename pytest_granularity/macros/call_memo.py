"""Macro calls remembered: the same call on the same folder is replayed, not made again.

A benchmark's runs converge: the macro, hybrid, heuristic and learned policies of a task make the
same call on the same fresh workspace, and a macro's work (``move_module`` parses and rewrites every
file with libcst) is the dearest part of their runs. A call is a function of the macro, its
arguments and context and the folder's state, as a test run is of its files (``pytest_process``
keeps those too), so the first call's outcome and the folder it left are kept, and a later identical
call on a folder in the same state gets both back: the folder is made what the call left it
(``folder_sync``: the same paths, kinds, bytes, links and modes) and the outcome is the call's, its
``seconds`` too (the macro audit reports what a call costs, not what a replay does).

Only where a replay is exact and the memo has a home: calls without injected faults, in the folder
a process keeps for its runs (``Workspace.for_task(reuse=True)``), whose copies live beside it and
go with it. Never kept: a call that timed out, died or broke in the harness (``executor_exception``),
whose tests timed out (the machine's doing, maybe), or that left what ``folder_sync`` cannot lay.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from ..core.failures import FailureClass
from ..core.folder_sync import fingerprint, keep_all, sync
from ..process.pytest_process import test_time
from .context import MacroContext
from .contract import Macro
from .runtime import FaultPoint, MacroOutcome, invoke, no_faults

MEMO_SIZE = 256
FOLDER = "macro-calls"
"""Beside the kept workspace folder: the folders remembered calls left."""


@dataclass(frozen=True)
class _Kept:
    """A remembered call. It holds the macros it names by identity, so their ids are not reused while it lives."""

    macros: tuple[Macro, ...]
    outcome: MacroOutcome
    folder: Path


_MEMO: OrderedDict[str, _Kept] = OrderedDict()


def invoke_remembered(macro: Macro, ctx: MacroContext, fault: FaultPoint = no_faults) -> MacroOutcome:
    """``invoke``, replayed when this call was made on this folder's state before."""
    key = _key(macro, ctx) if fault is no_faults and ctx.workspace.reused else None
    kept = _MEMO.get(key) if key is not None else None
    if key is not None and kept is not None and kept.folder.is_dir():
        _MEMO.move_to_end(key)
        sync(ctx.root, [kept.folder], keep_all)
        return kept.outcome
    timeouts = test_time.timeouts
    outcome = invoke(macro, ctx, fault)
    if key is not None and _repeatable(outcome) and test_time.timeouts == timeouts:
        _keep(key, (macro, *ctx.dependencies.values()), outcome, ctx.root)
    return outcome


def _key(macro: Macro, ctx: MacroContext) -> str | None:
    """The call and the folder's state; None when the folder holds what a replay could not lay."""
    state = fingerprint(ctx.root)
    if state is None:
        return None
    dependencies = sorted((name, id(d)) for name, d in ctx.dependencies.items())
    arguments = json.dumps(ctx.args, sort_keys=True, default=repr)
    call = (id(macro), dependencies, arguments, ctx.tests, ctx.test_timeout, ctx.sandbox.mode, str(ctx.root), state)
    return hashlib.blake2b(repr(call).encode(), digest_size=20).hexdigest()


def _repeatable(outcome: MacroOutcome) -> bool:
    return not (outcome.timed_out or outcome.injected or outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION)


def _keep(key: str, macros: tuple[Macro, ...], outcome: MacroOutcome, root: Path) -> None:
    if fingerprint(root) is None:
        return
    folder = root.parent / FOLDER / key
    shutil.rmtree(folder, ignore_errors=True)
    try:
        shutil.copytree(root, folder, symlinks=True)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    _MEMO[key] = _Kept(macros, outcome, folder)
    while len(_MEMO) > MEMO_SIZE:
        _, dropped = _MEMO.popitem(last=False)
        shutil.rmtree(dropped.folder, ignore_errors=True)
