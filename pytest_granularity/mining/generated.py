"""Files a project's build writes into its own package that git ignores: a task's ``fixture_generated``.

setuptools-scm and hatch-vcs write ``src/pkg/_version.py`` when the project is installed, and the package
imports it; git ignores it, so a tree read from git cannot ``import pkg``. Such files are taken from the
developer's checkout into every workspace of the task (``core.workspace``), never part of a solution.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import git


def generated_files(repo: git.Repo) -> tuple[str, ...]:
    """The ignored ``.py`` files of the working tree that sit in a package of the checked-out commit."""
    listed = repo.git.ls_files("--others", "--ignored", "--exclude-standard", "--directory", "-z")
    head = set(repo.git.ls_files("-z").split("\0"))
    found = [
        path
        for path in listed.split("\0")
        if path.endswith(".py") and f"{PurePosixPath(path).parent}/__init__.py" in head
    ]
    return tuple(sorted(found))


def for_tree(generated: tuple[str, ...], files: Mapping[str, bytes]) -> list[str]:
    """Those a tree lacks whose package it has: what its workspaces need from the checkout."""
    return [p for p in generated if p not in files and f"{PurePosixPath(p).parent}/__init__.py" in files]
