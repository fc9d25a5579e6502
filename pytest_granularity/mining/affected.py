"""The test files a change can affect: those that import, directly or through the project's own modules, a module
the change touches (a static import graph of the tree).

A task's pass-to-pass tests (``tests``, ``verifier.suite``) are meant to catch an agent breaking what the change
could break; a test file that never imports what changed can only cost a run. A test file counts its
``conftest.py`` files' imports as its own (their fixtures run with it). An import the graph cannot resolve
(``importlib.import_module`` with a computed name, a subprocess) is not seen: such a file is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath


def affected_tests(
    files: Mapping[str, bytes], roots: Mapping[str, str], changed: Iterable[str], tests: Iterable[str]
) -> set[str]:
    """The ``tests`` (paths) whose import closure reaches one of the ``changed`` paths."""
    modules = _modules(files, roots)
    by_name = {name: path for path, name in modules.items()}
    touched = {path for path in changed if path in modules}
    edges = {
        path: {by_name[n] for n in _imported(files[path], modules.get(path, "")) if n in by_name}
        for path in files
        if path.endswith(".py")
    }

    def reaches(start: list[str]) -> bool:
        seen, todo = set(start), list(start)
        while todo:
            path = todo.pop()
            if path in touched:
                return True
            fresh = edges.get(path, set()) - seen
            seen |= fresh
            todo += fresh
        return False

    return {test for test in tests if reaches([test, *_conftests(test, files)])}


def _modules(files: Mapping[str, bytes], roots: Mapping[str, str]) -> dict[str, str]:
    """Each project module's path -> dotted name, for the top-level names ``roots`` maps to their folders."""
    found = {}
    for path in files:
        pure = PurePosixPath(path)
        if pure.suffix != ".py":
            continue
        for name, folder in roots.items():
            base = () if folder == "." else PurePosixPath(folder).parts
            parts = pure.with_suffix("").parts
            if parts[: len(base)] != base or len(parts) <= len(base) or parts[len(base)] != name:
                continue
            dotted = list(parts[len(base) :])
            if dotted[-1] == "__init__":
                dotted.pop()
            found[path] = ".".join(dotted)
    return found


def _imported(source: bytes, module: str) -> set[str]:
    """Every module name an import in ``source`` may load (a ``from a import b`` may load ``a.b``), and the
    packages above each (importing ``a.b`` runs ``a/__init__.py``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    package = module.split(".")[:-1] if module else []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            names |= {target, *(f"{target}.{alias.name}" for alias in node.names)}
    return {".".join(n.split(".")[: i + 1]) for n in names if n for i in range(n.count(".") + 1)}


def _conftests(test: str, files: Mapping[str, bytes]) -> list[str]:
    parents = PurePosixPath(test).parents
    return [
        p
        for p in (f"{parent}/conftest.py" if str(parent) != "." else "conftest.py" for parent in parents)
        if p in files
    ]
