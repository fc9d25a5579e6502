"""Module moves a request pins down, however it is worded.

A move needs a module that exists and a place that does not. The request may name the module by
path, by dotted name or by its bare file name, and the place as a new path, a new dotted module
name, or only the package it goes into (``into hookshot/transport/``, ``to a new `pkg.util`
package``), where the module keeps its file name. It must also say that something moves: a word
of relocation (move, rename, relocate, migrate, belongs in, should live in, becomes ...), since a
prompt that names a module and a new file for some other reason (a new test, a docs page) is no
move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

from . import existing_file, existing_module, mentions, module_file, packages

_RELOCATION = re.compile(
    r"\b(mov(e|es|ed|ing)|renam(e|es|ed|ing)|relocat\w*|migrat\w*|transfer\w*|becomes?|belongs?|"
    r"live[sd]?|(re)?organi[sz]\w*|restructur\w*|put|place|shift\w*|split\w* out)\b",
    re.IGNORECASE,
)


def moves(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, str]]:
    """Candidate ``{source, destination}`` calls, the likeliest first: named sources in prompt order,
    and for each, explicit new module paths before places derived from a package."""
    if not _RELOCATION.search(prompt):
        return []
    named = mentions(prompt)
    places = [m for m in named if _is_new_place(m, files) or _package(m, files)]
    sources = [s for s in (existing_module(m, files) for m in named) if s is not None and s not in packages(files)]
    sources += [s for s in (_same_name(p, files) for p in places) if s is not None]
    calls = []
    for source in dict.fromkeys(sources):
        for destination in _destinations(source, places, files):
            calls.append({"source": source, "destination": destination})
    return calls


def _package(mention: str, files: Mapping[str, bytes]) -> str | None:
    """The folder of an existing package a mention names (``pkg/sub/``, ``pkg.sub``), a place to move into."""
    module = existing_module(mention, files)
    return module if module is not None and module in packages(files) else None


def _same_name(place: str, files: Mapping[str, bytes]) -> str | None:
    """The one module the project has with a new module path's file name: "move the stemmer to pkg/sub/stemmer.py"."""
    if not place.endswith(".py") or "/" not in place:
        return None
    name = PurePosixPath(place).name
    same = [p for p in files if PurePosixPath(p).name == name]
    return same[0] if len(same) == 1 else None


def _is_new_place(mention: str, files: Mapping[str, bytes]) -> bool:
    """A path or dotted name inside one of the project's top folders that is neither a file nor a
    package yet, nor an attribute of a module."""
    if existing_file(mention, files) is not None or existing_module(mention, files) is not None:
        return False
    top = mention.split("/" if "/" in mention else ".")[0]
    if not any(p.startswith(top + "/") for p in files):
        return False  # a place in the project, not a class's attribute or a folder elsewhere
    if "/" in mention:
        return PurePosixPath(mention).suffix in ("", ".py")
    parts = mention.split(".")
    prefixes = (module_file(".".join(parts[:n]), files) for n in range(1, len(parts)))
    return not any(p is not None and not p.endswith("__init__.py") for p in prefixes)


def _destinations(source: str, places: list[str], files: Mapping[str, bytes]) -> list[str]:
    name = PurePosixPath(source).name
    explicit: list[str] = []
    derived: list[str] = []
    for place in places:
        package = _package(place, files)
        if package is not None:
            derived.append(f"{package}/{name}")
            continue
        path = place if "/" in place else place.replace(".", "/")
        if "/" in place and path.endswith(".py"):
            explicit.append(path)
            continue
        if "/" not in place:
            module = path + (".py" if source.endswith(".py") else "")
            (explicit if PurePosixPath(path).name == PurePosixPath(source).stem else derived).append(module)
        derived.append(f"{path}/{name}")
    taken = set(files) | packages(files)
    return [d for d in dict.fromkeys(explicit + derived) if d != source and d not in taken]
