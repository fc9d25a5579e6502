"""The environment a baseline or a router file is made in: what can move its numbers without a change of the code.

The agent reads pytest's output, so another pytest (or Python) words a failure differently and a run's
tokens move. A file records where it was made, so that the gate can say when a difference may be the
environment's rather than the change's.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib import metadata

Environment = Mapping[str, str]


def current_environment() -> dict[str, str]:
    """This process's Python, pytest and platform (system and machine: what changes a run, not a kernel build)."""
    return {
        "python": platform.python_version(),
        "pytest": metadata.version("pytest"),
        "platform": f"{platform.system()}-{platform.machine()}",
    }


def environment_note(kind: str, recorded: Environment | None, now: Environment, differences: str) -> str | None:
    """One line saying that ``differences`` (already found) may be the environment's: the ``kind`` file
    (``baseline``) records none, or records another; None when it records this one."""
    blame = f"differences in {differences} may be the environment's"
    if recorded is None:
        here = ", ".join(f"{key} {value}" for key, value in now.items())
        return f"the {kind} records no environment, this run uses {here}: {blame}"
    changed = [key for key in now if recorded.get(key) != now[key]]
    if not changed:
        return None
    then = ", ".join(f"{key} {recorded.get(key, 'unknown')}" for key in changed)
    here = ", ".join(f"{key} {now[key]}" for key in changed)
    return f"the {kind} was made with {then}, this run uses {here}: {blame}"
