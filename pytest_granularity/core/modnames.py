"""Python module names from workspace paths, and relative imports made absolute.

Shared by the routing features (which files import a target), ``move_module`` (which imports to
rewrite) and a mined macro's validation (which tests import what it rewrote), so all three read a
project's imports the same way.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Collection
from pathlib import Path, PurePosixPath


def dotted_name(rel: str) -> str:
    """``pkg/sub/mod.py`` → ``pkg.sub.mod``; ``pkg/sub/__init__.py`` or ``pkg/sub`` → ``pkg.sub``."""
    parts = list(PurePosixPath(rel).parts)
    if parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(rel: str) -> str:
    """The package a relative import in the file ``rel`` is resolved against."""
    module = dotted_name(rel)
    return module if rel.endswith("__init__.py") else module.rpartition(".")[0]


def absolute_module(package: str, module: str | None, level: int) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` inside ``package``."""
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def import_name(root: Path, rel: str) -> str:
    """The name ``rel`` is imported by: its dotted path from the nearest folder that is not a package.

    ``src/pkg/mod.py`` is ``pkg.mod`` when ``src`` has no ``__init__.py`` (a src layout), and a
    test file in a plain ``tests/`` folder is imported by its own name. A folder that does not
    exist yet counts as a package: a move creates it with an ``__init__.py``.
    """
    return _import_name(rel, lambda folder: _is_package(root / folder))


def tree_import_name(paths: Collection[str], rel: str) -> str:
    """``import_name`` in a tree known by its file paths (a commit's), where a package is a folder with an
    ``__init__.py`` among them: nothing is moved there, so no folder is a package by being absent."""
    return _import_name(rel, lambda folder: f"{folder}/__init__.py" in paths)


def _import_name(rel: str, is_package: Callable[[str], bool]) -> str:
    parts = PurePosixPath(rel).parts
    start = len(parts) - 1
    while start > 0 and is_package("/".join(parts[:start])):
        start -= 1
    return dotted_name("/".join(parts[start:]))


def import_package(root: Path, rel: str) -> str:
    """The package a relative import in the file ``rel`` is resolved against (see ``import_name``)."""
    module = import_name(root, rel)
    return module if rel.endswith("__init__.py") else module.rpartition(".")[0]


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file() or not folder.exists()


@functools.lru_cache(maxsize=8192)
def imported_names(path: str, data: bytes) -> frozenset[str]:
    """Every module a file imports, and each ``from`` import's names under their module.

    Cached by path and content: every run of a fixture's tasks routes on the same files, and
    parsing them all is most of what routing costs.
    """
    try:
        tree = ast.parse(data.decode("utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return frozenset()
    package = package_of(path)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(package, node.module, node.level) or ""
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(names)
