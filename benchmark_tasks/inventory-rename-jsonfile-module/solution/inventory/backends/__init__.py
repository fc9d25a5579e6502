"""Pluggable storage backends for the inventory catalogue.

Use :func:`create_backend` to build a backend from configuration values::

    backend = create_backend("json", path="var/inventory.json")

Backend implementations are imported on first use. Each kind is registered in
:data:`BACKENDS` with the module (inside this package) and the class that
implement it; ``from inventory.backends import JsonFileBackend`` still works.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ..errors import BackendError
from .base import StorageBackend

__all__ = ["StorageBackend", "MemoryBackend", "JsonFileBackend", "backend_class", "create_backend"]

#: backend kind -> (module in this package, class name)
BACKENDS: dict[str, tuple[str, str]] = {
    "memory": ("memory", "MemoryBackend"),
    "json": ("json_file", "JsonFileBackend"),
}


def backend_class(kind: str) -> type[StorageBackend]:
    """Import and return the class implementing the backend called ``kind``."""
    try:
        module_name, class_name = BACKENDS[kind]
    except KeyError:
        raise BackendError(f"unknown storage backend {kind!r}; expected 'memory' or 'json'") from None
    module = importlib.import_module(__name__ + "." + module_name)
    return getattr(module, class_name)


def create_backend(kind: str, path: str | Path | None = None) -> StorageBackend:
    """Instantiate the backend called ``kind`` ("memory" or "json")."""
    cls = backend_class(kind)
    if kind == "json":
        if path is None:
            raise BackendError("the 'json' backend requires a path to the storage file")
        return cls(path)
    return cls()


def __getattr__(name: str) -> Any:
    """Lazy access to the backend classes named in :data:`BACKENDS`."""
    for kind, (_, class_name) in BACKENDS.items():
        if name == class_name:
            return backend_class(kind)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
