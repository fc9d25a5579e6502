"""Does a macro call reproduce a task's change? The verifier, not the macro, says.

Shared by task mining (which builtin macro reproduces a mined commit) and macro mining (does a mined shape
reproduce its source tasks), so both judge a call the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.tasks import Task
from ..core.workspace import Workspace
from ..macros import Macro, MacroContext
from ..macros.runtime import invoke
from ..process.sandbox import Sandbox
from ..verifier.verify import verify

TEST_TIMEOUT = 60.0


def reproduces(
    task: Task,
    macro: Macro,
    calls: Sequence[dict[str, Any]],
    sandbox: Sandbox,
    dependencies: dict[str, Any] | None = None,
) -> bool:
    """Whether the calls ``macro(args)``, made in turn on the task's initial files, all succeed and the verifier
    accepts what they leave."""
    with Workspace.for_task(task, reuse=True) as workspace:
        config = task.pytest_config
        for args in calls:
            context = MacroContext(
                workspace, dict(args), task.tests, TEST_TIMEOUT, dependencies or {}, sandbox, None, config
            )
            if not invoke(macro, context).ok:
                return False
        return verify(task, workspace, sandbox).accepted
