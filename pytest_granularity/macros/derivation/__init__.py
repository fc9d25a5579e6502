"""Reading a request for what it pins down: the files and modules it names, and the values it quotes.

A macro's ``applicability.derive`` proposes whole calls from the prompt and the initial files
alone. The builtin macros share what they read here, so a request worded another way ("relocate",
"should live in", a dotted module name instead of a path, a bare file name) is read the same way
by each of them. Everything here is a pure function of the prompt and a read-only mapping of
the files: it runs under the applicability guard, which refuses writes and hidden reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

# A path-like token (group 1), and a backticked or quoted text (its one filled group).
PATH_TOKEN = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|md|rst|txt|json|toml|ini|cfg|yaml|yml|csv))(?![\w/-])"
)
QUOTED_TEXT = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|'([^'\n]+)'")
_DOTTED = re.compile(r"(?<![\w./-])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w/-])")
_README = re.compile(r"\breadme\b", re.IGNORECASE)


def prompt_paths(prompt: str) -> list[str]:
    """The distinct path-like tokens of a prompt, sorted."""
    return sorted({m.group(1).rstrip("./") for m in PATH_TOKEN.finditer(prompt)})


def mentions(prompt: str) -> list[str]:
    """Paths and dotted names in the order the prompt gives them (a path's trailing dot or slash dropped)."""
    found = [(m.start(), m.group(1).rstrip("./")) for m in PATH_TOKEN.finditer(prompt)]
    taken = [range(m.start(), m.end()) for m in PATH_TOKEN.finditer(prompt)]
    for m in _DOTTED.finditer(prompt):
        if not any(m.start() in span for span in taken):
            found.append((m.start(), m.group(0).rstrip(".")))
    return list(dict.fromkeys(text for _, text in sorted(found)))


def packages(files: Mapping[str, bytes]) -> set[str]:
    """The workspace's package folders (those with an ``__init__.py``)."""
    return {p.rsplit("/", 1)[0] for p in files if p.endswith("/__init__.py")}


def existing_file(mention: str, files: Mapping[str, bytes]) -> str | None:
    """The workspace file a mention names: its path, its dotted module name, or a bare file name
    that only one file has (``stemmer.py``); None when it names none."""
    if mention in files:
        return mention
    if "/" not in mention and "." in mention:
        module = module_file(mention, files)
        if module is not None:
            return module
        same_name = [p for p in files if PurePosixPath(p).name == mention]
        if len(same_name) == 1:
            return same_name[0]
    return None


def _module_of_attribute(mention: str, files: Mapping[str, bytes]) -> str | None:
    parts = mention.split(".") if "/" not in mention else []
    found = (module_file(".".join(parts[:n]), files) for n in range(len(parts) - 1, 1, -1))
    return next((f for f in found if f is not None), None)


def module_file(dotted: str, files: Mapping[str, bytes]) -> str | None:
    """The ``.py`` file of an importable module name, when the workspace has it."""
    path = dotted.replace(".", "/")
    for candidate in (f"{path}.py", f"{path}/__init__.py"):
        if candidate in files:
            return candidate
    return None


def existing_module(mention: str, files: Mapping[str, bytes]) -> str | None:
    """A module or package a mention names, as the path a move takes: ``pkg/mod.py`` or ``pkg/sub``."""
    named = existing_file(mention, files)
    if named is not None:
        if named.endswith("/__init__.py"):
            return named.rsplit("/", 1)[0]
        return named if named.endswith(".py") else None
    folder = mention.replace(".", "/") if "/" not in mention else mention
    return folder if folder in packages(files) else None


def named_files(prompt: str, files: Mapping[str, bytes]) -> list[str]:
    """The workspace files a prompt names, in the order it names them: also the module of a dotted
    attribute (``pkg.mod.NAME`` names ``pkg/mod.py``), and "the README" is the README the workspace
    has, when it has exactly one at its root."""
    named = [f for f in (existing_file(m, files) or _module_of_attribute(m, files) for m in mentions(prompt)) if f]
    if _README.search(prompt):
        readmes = [p for p in files if "/" not in p and p.lower().startswith("readme.")]
        if len(readmes) == 1:
            named.append(readmes[0])
    return list(dict.fromkeys(named))
