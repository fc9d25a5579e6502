"""What a mined task's tests need that its message may not say: the names the commit adds, or whose
signature it changes, that the fail-to-pass tests use.

A commit message says what its author meant; its tests call what the author wrote. When the tests call
``ellipsize(text, width=10)`` and the message says "Shorten long labels", no agent can pass them but by
guessing the name. The interface section closes that gap with no model: both trees' syntax, compared.
Its limit is the tests' other demands: an exact error text or an edge case that the message does not
describe is not a name, and nothing here finds it.

Modules are named as they are imported (``core.modnames.tree_import_name``): the path from the outermost
folder of its package, so ``src/strutils.py`` is ``strutils`` and ``src/pkg/text.py``, beside
``src/pkg/__init__.py``, is ``pkg.text``; a namespace package (no ``__init__.py``) is lost from the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

from ..core.modnames import tree_import_name
from .surface import Definition, Surface, surface
from .usage import Usage, usage

HEADING = "The tests use:"


@dataclass(frozen=True)
class Item:
    """One thing the tests use, as the commit writes it."""

    module: str
    signature: str
    """As ``surface.Definition.signature``: ``ellipsize(text, width=10)``; empty for a new module."""
    name: str
    """The word a prompt would say it by: the definition's own name, or a module's last part."""
    doc: str
    new: bool
    """The commit adds it (or renames it to this); otherwise it changes its signature."""
    renamed_from: str = ""

    def line(self) -> str:
        text = f"{self.module}.{self.signature}" if self.signature else f"{self.module} (a new module)"
        if self.renamed_from:
            text = f"{self.module}.{self.renamed_from} → {text}"
        return f"- {text}: {self.doc}" if self.doc else f"- {text}"


@dataclass(frozen=True)
class Interface:
    """The items of a commit's interface that its fail-to-pass tests use, module by module."""

    items: tuple[Item, ...]

    def section(self) -> str:
        """The prompt's interface section: a heading, one line an item; empty when the tests need nothing new."""
        return "\n".join([HEADING, *(item.line() for item in self.items)]) if self.items else ""

    def missing(self, prompt: str) -> list[str]:
        """The public names the commit adds that the tests use and ``prompt`` never says (as a whole word):
        an audit of a prompt, with or without the section."""
        said = set(re.findall(r"\w+", prompt))
        absent = (i.name for i in self.items if i.new and not i.name.startswith("_") and i.name not in said)
        return list(dict.fromkeys(absent))


def interface(
    parent: Mapping[str, bytes],
    commit: Mapping[str, bytes],
    source_paths: Iterable[str],
    test_sources: Mapping[str, bytes],
    fail_to_pass: Sequence[str],
) -> Interface:
    """The interface of a commit that its fail-to-pass tests use.

    ``parent`` and ``commit`` are the two trees (path to bytes), ``source_paths`` the commit's changed files
    outside the tests, ``test_sources`` its test files and ``fail_to_pass`` the selected tests' node ids.
    A name counts when the tests use it (``usage``), private or not: a test that imports ``_helper`` needs it.
    """
    used = usage(test_sources, fail_to_pass)
    items: list[Item] = []
    for path in sorted({p for p in source_paths if p.endswith(".py") and p in commit}):
        after = surface(commit[path])
        if after is None:
            continue
        module = tree_import_name(commit, path)
        before = surface(parent[path]) if path in parent else None
        if path not in parent and used.imports(module):
            items.append(Item(module, "", module.rpartition(".")[2], after.doc, new=True))
        items.extend(_changes(module, before, after, used))
    return Interface(tuple(items))


def _changes(module: str, before: Surface | None, after: Surface, used: Usage) -> Iterator[Item]:
    """The definitions of ``after`` that are new or have another signature than in ``before``, and are used."""
    old = before.definitions if before else {}
    removed = [d for q, d in old.items() if q not in after.definitions]
    renamed = _renames(removed, [d for q, d in after.definitions.items() if q not in old])
    for qualname, definition in after.definitions.items():
        if definition.name not in used.names:
            continue
        was = old.get(qualname)
        if was is None:
            yield _item(module, definition, new=True, renamed_from=renamed.get(qualname, ""))
        elif (was.kind, was.signature) != (definition.kind, definition.signature):
            yield _item(module, definition, new=False)


def _item(module: str, definition: Definition, new: bool, renamed_from: str = "") -> Item:
    return Item(module, definition.signature, definition.name, definition.doc, new, renamed_from)


def _renames(removed: list[Definition], added: list[Definition]) -> dict[str, str]:
    """Each added qualified name that renames a removed one, with it: the same kind in the same class, with
    the same body, else standing where the removed one stood. Pairs are one to one, in the order written."""
    pairs: dict[str, str] = {}
    for same in (attrgetter("body"), attrgetter("after")):
        for new in added:
            free = [r for r in removed if r.qualname not in pairs.values() and new.qualname not in pairs]
            match = next((r for r in free if (r.kind, r.owner) == (new.kind, new.owner) and same(r) == same(new)), None)
            if match is not None:
                pairs[new.qualname] = match.qualname
    return pairs


def unnamed(missing: list[str]) -> str:
    """Why a prompt is underspecified: the names its tests need that it never gives."""
    return f"the fail-to-pass tests use {', '.join(missing)}, new in the commit, which the prompt never names"
