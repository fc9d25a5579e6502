"""The tasks ``granularity init`` starts a repository with: its recent history, mined.

``gate.init`` sits below this group, so the ``init`` command hands it :func:`recent_history` as its miner. The
folder given is where the tasks will stay, or one beside it: a mined task names the repository, its fixture, by
a path relative to its own folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import GranularityError, InputError
from ..macros import MacroRegistry
from ..process.sandbox import select
from .history import open_repository
from .miner import LEDGER, MineSettings, mine, print_progress
from .report import summary_line

RECENT = 50
"""First-parent commits mined by default: mining takes seconds to a minute per candidate."""


def recent_history(root: Path, folder: Path, revisions: str | None = None, limit: int | None = None) -> list[str]:
    """Mine ``revisions`` (default: the last :data:`RECENT` first-parent commits) into ``folder``; a line on how it
    went. A repository that cannot be mined by default (a shallow clone) is said so
    and nothing is written; ``revisions`` or ``limit`` that cannot be mined are refused."""
    sandbox = select("auto")
    try:
        settings = MineSettings(revisions or _recent(root), limit, os.cpu_count() or 1)
        summary = mine(root, folder, MacroRegistry.load(), sandbox, settings, print_progress)
    except InputError as exc:
        if revisions is not None:
            raise
        return [f"the history was not mined: {exc}"]
    finally:
        sandbox.servers.stop()
        (folder / LEDGER).unlink(missing_ok=True)  # it names this machine's path to the repository
    if summary.interrupted:
        raise GranularityError("interrupted while mining; nothing written")
    return [summary_line(summary, settings.revisions)]


def _recent(root: Path) -> str:
    repo = open_repository(root)
    count = int(repo.git.rev_list("--first-parent", "--count", "HEAD"))
    return f"HEAD~{RECENT}..HEAD" if count > RECENT else "HEAD"
