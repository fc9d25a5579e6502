"""A pytest plugin (``-p``, from a task's ``pytest:`` spec) that makes the project's own code come from the workspace.

A developer's environment has the project installed, usually editable: a ``.pth`` puts the checkout's folder on
``sys.path``, or a finder on ``sys.meta_path`` maps the package to it. A run of a task must import the project
from the workspace the agent changed, never from that checkout, or every hidden test would judge the developer's
copy. So before any conftest loads, a finder put first on ``sys.meta_path`` answers for the project's top-level
names alone (the task names them, with the workspace folder each comes from) and modules of those names already
imported from elsewhere are forgotten. Everything else, pytest and its plugins included, still comes from the
environment: a planted ``pytest.py`` or ``_pytest/`` in the workspace changes nothing. A name the workspace lacks
is an import error, not a silent fall back to the installed copy.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest

from ..core.pytest_spec import IMPORT_ROOTS_INI

NEVER = frozenset({"pytest", "_pytest", "py", "pytest_granularity"})
"""What the harness itself runs on: never taken from the workspace, whatever a task says."""


class WorkspaceFinder(importlib.abc.MetaPathFinder):
    def __init__(self, folders: dict[str, list[str]]) -> None:
        self.folders = folders
        """Top-level name -> the absolute folders it is imported from, in the order tried."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        folder = self.folders.get(fullname)
        if folder is None:
            return None  # a submodule follows its package's own __path__, which is in the workspace
        spec = importlib.machinery.PathFinder.find_spec(fullname, folder)
        if spec is None:
            shown = ", ".join(folder)
            raise ModuleNotFoundError(f"No module named {fullname!r} in the workspace ({shown})", name=fullname)
        return spec


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(IMPORT_ROOTS_INI, "the project's top-level names and their folders, as name=folder", type="args")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    install(early_config.getini(IMPORT_ROOTS_INI), os.getcwd())


def install(words: list[str], root: str) -> None:
    """Put the finder first, for ``name=folder`` words under ``root``; forget what was imported from elsewhere."""
    folders: dict[str, list[str]] = {}
    for word in words:
        name, _, listed = word.partition("=")
        paths = [os.path.normpath(os.path.join(root, folder or ".")) for folder in listed.split(",")]
        inside = [path for path in paths if path == root or path.startswith(root + os.sep)]
        if name.isidentifier() and name not in NEVER and inside:
            folders[name] = inside
    if not folders:
        return
    for name in [m for m in sys.modules if m.split(".")[0] in folders]:
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if not any(origin.startswith(folder + os.sep) for folder in folders[name.split(".")[0]]):
            del sys.modules[name]
    sys.meta_path.insert(0, WorkspaceFinder(folders))
    importlib.invalidate_caches()
