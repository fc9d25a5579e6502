"""A source's edit as calls of one shape, or the reason it is not.

A macro call is one rewrite with one set of values, applied wherever it matches in the files it names, or
one run of items added beside a sibling (``insertions``). A task whose Python changes are all rewrites, or
all runs of added items, that share one shape (the same line in several files, one constant after another,
a week's names after the day's and a quarter's after the month's) is reproduced by one call per *site*;
one that adds files, adds or removes statements otherwise, or makes rewrites of different shapes needs
other kinds of calls, and teaches this miner nothing (it says which). So does the rewrite of a header part
a call's parameters (expressions) cannot name: a signature (a def's parameters, a decorator, a base class).
Changes to other files (a changelog, the docs) are left to the verifier: the miner screens every shape by
reproducing its source tasks, so a task whose verifier needs them is dropped there.

Most real commits are not calls of one shape, but many hold some (a format added to a table beside a new
function, a locale's entries beside its tests' fixes): ``pieces_of`` gives such a commit's rewrites and runs
of added items as pieces, each of which may share a shape with another task's. A piece is proved on the
commit with the rest of its change already made (``miner``), so the rest is what an agent finishes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from .generalize import Instance, acceptable, anti_unify
from .insertions import file_insertions, insertion_runs, is_item_edit
from .rewrites import DEFINITIONS, Rewrite, file_rewrites
from .shape import unit_kind
from .sources import Source
from .trees import Tree

NOT_PYTHON = "changes no Python file"
ADDS_FILES = "adds, moves or removes Python files"
NOT_REWRITES = "adds or removes statements, not only runs of items beside a sibling"
SEVERAL = "makes rewrites or insertions of different shapes"
SIGNATURE = "changes a signature (a parameter added or removed, a return annotation, a decorator, a base class)"
HEADER_PART = "rewrites a header part that is not an expression (a `with` item, an `as` name)"
SIGNATURE_PARTS = (cst.Parameters, cst.Annotation, cst.Decorator, cst.Arg, *DEFINITIONS)


@dataclass(frozen=True)
class Site:
    """One call's worth of an edit: the instance to generalize, and the files the call names."""

    instance: Instance
    files: tuple[str, ...]


@dataclass(frozen=True)
class Edit:
    """A source whose edit is calls of one shape, a site each."""

    source: Source
    sites: tuple[Site, ...]
    partial: bool = False
    """The sites are pieces of a larger change: calls make them, and the rest is left to whoever finishes it."""

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(sorted({f for site in self.sites for f in site.files}))


def edit_of(source: Source) -> Edit | str:
    """The source's sites, or why it has none."""
    before, after = source.before, source.after
    changed = changed_python(before, after)
    if not changed:
        return NOT_PYTHON
    if any(p not in before or p not in after for p in changed):
        return ADDS_FILES
    task = source.task.id
    runs = [(path, file_insertions(text(before[path]), text(after[path]))) for path in changed]
    if all(found for _, found in runs):  # before the rewrites, which see a dict that grew as a rewritten statement
        return _alike(
            source, [Site(Instance(task, r.before, r.after), (path,)) for path, found in runs for r in found or []]
        )
    rewrites: list[Rewrite] = []
    for path in changed:
        units = file_rewrites(path, text(before[path]), text(after[path]))
        if not units:
            return NOT_REWRITES
        rewrites += units
    for unit in (u for u in rewrites if not _callable(u)):
        return SIGNATURE if isinstance(unit.before.node, SIGNATURE_PARTS) else HEADER_PART
    places: dict[tuple[Tree, Tree], list[str]] = {}
    for unit in rewrites:
        places.setdefault((unit.before, unit.after), []).append(unit.path)
    sites = [Site(Instance(task, b, a), tuple(sorted(set(files)))) for (b, a), files in places.items()]
    return _alike(source, sites)


def pieces_of(source: Source) -> Edit | None:
    """The pieces a call could make of a change that is not calls of one shape: each run of items added beside a
    sibling and each rewrite of a unit a call can name, in the Python files the change keeps; None without any."""
    before, after, task = source.before, source.after, source.task.id
    found: list[tuple[Tree, Tree, str]] = []
    for path in (p for p in changed_python(before, after) if p in before and p in after):
        old, new = text(before[path]), text(after[path])
        found += [(run.before, run.after, path) for run in insertion_runs(old, new)]
        found += [(u.before, u.after, path) for u in file_rewrites(path, old, new, partial=True) or [] if _callable(u)]
    sites = [Site(Instance(task, b, a, piece), (path,)) for piece, (b, a, path) in enumerate(found)]
    return Edit(source, tuple(sites), partial=True) if sites else None


def _callable(unit: Rewrite) -> bool:
    """A unit a call's parameters can name: an item, or a statement or expression rewritten as one of its kind."""
    if is_item_edit(unit.before):
        return True
    kind = unit_kind(unit.before.node)
    return kind is not None and unit_kind(unit.after.node) == kind


def _alike(source: Source, sites: list[Site]) -> Edit | str:
    """The edit, when its sites share one shape."""
    if len(sites) > 1:
        pattern = anti_unify([s.instance.before for s in sites], [s.instance.after for s in sites])
        if pattern is None or not acceptable(pattern):
            return SEVERAL
    return Edit(source, tuple(sites))


def changed_python(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """The Python files an edit adds, removes or changes, in path order."""
    return sorted(p for p in before.keys() | after.keys() if p.endswith(".py") and before.get(p) != after.get(p))


def text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
