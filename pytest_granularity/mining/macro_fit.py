"""Does a registered macro reproduce the commit? Each macro's derived calls are tried on the parent.

Only what an agent has before it acts is used to derive the calls (the prompt and the parent's files,
``suggested_calls``); a call whose result the task's verifier accepts becomes the task's ``macro:``.
A suggested call that runs but is not accepted marks the task ``recovery``: a macro that seems to fit
and does not is what that family measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.tasks import Task
from ..macros import MacroRegistry
from ..macros.suggestions import ApplicabilityError, suggested_calls
from ..process.sandbox import Sandbox
from ..run.reproduces import reproduces

TEST_TIMEOUT = 60.0


@dataclass(frozen=True)
class Fit:
    call: dict[str, Any] | None
    """The accepted call, as the task file's ``macro:`` (``skill``, ``args``), or None."""
    tried: int
    """How many suggested calls ran; some tried and none accepted is a macro that seems to fit and does not."""


def macro_fit(task: Task, files: dict[str, bytes], macros: MacroRegistry, sandbox: Sandbox) -> Fit:
    """The first suggested call, in the registry's order, that the verifier accepts."""
    try:
        suggestions = suggested_calls(task.prompt, files, macros.available(), task.hidden_paths)
    except ApplicabilityError:
        return Fit(None, 0)
    tried = 0
    for macro in macros.available():
        dependencies = {d: macros.get(d) for d in macro.contract.get("depends_on", [])}
        for args in suggestions.get(macro.name, []):
            tried += 1
            if reproduces(task, macro, [args], sandbox, dependencies):
                return Fit({"skill": macro.name, "args": dict(args)}, tried)
    return Fit(None, tried)
