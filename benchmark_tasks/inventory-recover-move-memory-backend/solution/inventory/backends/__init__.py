"""Pluggable storage backends for the inventory catalogue.

Use :func:`create_backend` to build a backend from configuration values::

    backend = create_backend("json", path="var/inventory.json")
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BackendError
from .base import StorageBackend
from .jsonfile import JsonFileBackend
from inventory.backends.in_memory import MemoryBackend

__all__ = ["StorageBackend", "MemoryBackend", "JsonFileBackend", "create_backend"]


def create_backend(kind: str, path: str | Path | None = None) -> StorageBackend:
    """Instantiate the backend called ``kind`` ("memory" or "json")."""
    if kind == "memory":
        return MemoryBackend()
    if kind == "json":
        if path is None:
            raise BackendError("the 'json' backend requires a path to the storage file")
        return JsonFileBackend(path)
    raise BackendError(f"unknown storage backend {kind!r}; expected 'memory' or 'json'")
