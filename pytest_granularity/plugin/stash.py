"""Where the plugin keeps a ``--granularity`` session in ``config.stash``.

Apart from the session itself so the entry point can ask whether a session is on without
importing it (see the plugin's docstring: it must stay cheap to import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .session import GranularitySession

session_key: pytest.StashKey[GranularitySession] = pytest.StashKey()
"""The session of a ``--granularity`` run; absent when no session is on."""
