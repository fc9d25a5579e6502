"""The Python files of each live workspace as the harness set it up: the only content a warm pytest server
may keep rewritten (``process/rewrite_cache``), never what an agent wrote."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

_vouched: dict[Path, frozenset[bytes]] = {}


def digest(source: bytes) -> bytes:
    return hashlib.blake2b(source, digest_size=20).digest()


def vouch(root: Path, files: Mapping[str, bytes]) -> None:
    """The Python files of a workspace as the harness set it up: the only content servers keep rewritten."""
    _vouched[root] = frozenset(digest(data) for rel, data in files.items() if rel.endswith(".py"))


def forget(root: Path) -> None:
    _vouched.pop(root, None)


def vouched_for(cwd: Path) -> frozenset[bytes]:
    """What was vouched for the workspace ``cwd`` is (or lies in); nothing for any other folder."""
    for folder in (cwd, *cwd.parents):
        if folder in _vouched:
            return _vouched[folder]
    return frozenset()
