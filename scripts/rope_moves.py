"""The peer on the corpus's module moves: rope 1.15's own refactorings, as a user of rope would call them.

A move to another folder is ``rope.refactor.move.MoveModule``; a move that also changes the
module's name is ``rope.refactor.rename.Rename`` first. A destination folder that does not exist
is created first as a package (an ``__init__.py``), as ``move_module`` does, and removed again
when rope refuses, so a refusal leaves the copy as it was. ``Project(root, ropefolder=None)``
keeps rope from writing its ``.ropeproject`` folder into the copy.

Install it with the ``corpus`` extra (``pip install -e '.[corpus]'``).
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath

from rope.base.project import Project
from rope.refactor.move import MoveModule
from rope.refactor.rename import Rename

from pytest_granularity.macros.builtin.move_module_engine.rewrite import ensure_packages


def rope_move(root: Path, source: str, destination: str) -> str | None:
    """Move ``source`` to ``destination`` inside ``root`` with rope; the reason rope refused, or None."""
    old, new = PurePosixPath(source.rstrip("/")), PurePosixPath(destination.rstrip("/"))
    created = ensure_packages(root, new.parent)
    project = Project(str(root), ropefolder=None)
    try:
        resource = project.get_resource(str(old))
        if new.stem != old.stem:
            project.do(Rename(project, resource).get_changes(new.stem))
            resource = project.get_resource(str(old.parent / new.name))
        if new.parent != old.parent:
            project.do(MoveModule(project, resource).get_changes(project.get_resource(str(new.parent))))
    except Exception as exc:
        for folder in reversed(created):
            shutil.rmtree(folder, ignore_errors=True)
        return f"rope raised {type(exc).__name__}: {exc}"
    finally:
        project.close()
    return None
