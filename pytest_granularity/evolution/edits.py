"""A source's edit as one rewrite, or the reason it is not one.

A macro call is one rewrite with one set of values, applied wherever it matches in the files it names, or
one run of items added beside a sibling (``insertions``). A task whose Python changes are all the same
rewrite (one place, or the same line in several files), or one such run in one file, can be reproduced by
one call; one that adds files, adds or removes statements elsewhere, or makes different rewrites needs more
than one call, and teaches this miner nothing (it says which). So does the rewrite of a header part a
call's parameters (expressions) cannot name: a signature (a def's parameters, a decorator, a base class).
Changes to other files (a changelog, the docs) are left to the verifier: the miner screens every shape by
reproducing its source tasks, so a task whose verifier needs them is dropped there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from .generalize import Instance
from .insertions import file_insertion
from .rewrites import DEFINITIONS, Rewrite, file_rewrites
from .shape import unit_kind
from .sources import Source

NOT_PYTHON = "changes no Python file"
ADDS_FILES = "adds, moves or removes Python files"
NOT_REWRITES = "adds or removes statements, not one run of items beside a sibling"
SEVERAL = "makes several different rewrites"
SIGNATURE = "changes a signature (a parameter, a return annotation, a decorator or a base class)"
HEADER_PART = "rewrites a header part that is not an expression (a `with` item, an `as` name)"
SIGNATURE_PARTS = (cst.Parameters, cst.Annotation, cst.Decorator, cst.Arg, *DEFINITIONS)


@dataclass(frozen=True)
class Edit:
    """A source whose edit is one rewrite: the instance to generalize, and the files it rewrites."""

    source: Source
    instance: Instance
    files: tuple[str, ...]


def edit_of(source: Source) -> Edit | str:
    """The source's one rewrite, or why it has none."""
    before, after = source.before, source.after
    changed = changed_python(before, after)
    if not changed:
        return NOT_PYTHON
    if any(p not in before or p not in after for p in changed):
        return ADDS_FILES
    inserted = file_insertion(text(before[changed[0]]), text(after[changed[0]])) if len(changed) == 1 else None
    if inserted is not None:  # before the rewrites, which would see a dict that grew as one rewritten statement
        return Edit(source, Instance(source.task.id, inserted.before, inserted.after), tuple(changed))
    rewrites: list[Rewrite] = []
    for path in changed:
        found = file_rewrites(path, text(before[path]), text(after[path]))
        if not found:
            return NOT_REWRITES
        rewrites += found
    first = rewrites[0]
    if any((r.before, r.after) != (first.before, first.after) for r in rewrites[1:]):
        return SEVERAL
    if unit_kind(first.before.node) is None or unit_kind(first.after.node) != unit_kind(first.before.node):
        return SIGNATURE if isinstance(first.before.node, SIGNATURE_PARTS) else HEADER_PART
    return Edit(source, Instance(source.task.id, first.before, first.after), tuple(changed))


def changed_python(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """The Python files an edit adds, removes or changes, in path order."""
    return sorted(p for p in before.keys() | after.keys() if p.endswith(".py") and before.get(p) != after.get(p))


def text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
