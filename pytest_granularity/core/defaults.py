"""The values a session runs with when no option or ini key sets them.

Here, in the lowest layer, so the plugin's option table can show each in its help without importing the layers
that apply it (every pytest run imports the options; the macros and the gate wait for ``--granularity``).
"""

from __future__ import annotations

DEFAULT_TOP_K = 5
"""Macros offered to a task's macro phase, the best by BM25 (``--granularity-retrieval-k``)."""
DEFAULT_BREAKER = 5
"""Consecutive malfunctions that disable a macro for the session (``--granularity-breaker``)."""
TEST_TOKEN_TOLERANCE = 0.10
"""The gate: how far one test's tokens may rise over its baseline entry."""
MAX_TOKEN_INCREASE = 0.05
"""The gate: how far a policy's mean tokens may rise."""
MAX_SUCCESS_DROP = 0.0
"""The gate: how far a policy's success rate may drop."""
ALPHA = 0.05
"""The gate with epochs: the false-alarm rate when nothing changed."""
