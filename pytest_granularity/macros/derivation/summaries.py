"""API summaries a request pins down: a module it names, into its docstring or into a new file it names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

from . import existing_file, mentions

_SUMMARY = re.compile(
    r"\b(summar[iy]\w*|overview|reference (page|doc\w*)|api (docs?|reference|page)|public api|"
    r"(document|describ|list)\w* (its |the |all |every |each )?(\w+ ){0,2}(api|public))",
    re.IGNORECASE,
)
_PAGE_SUFFIXES = {".md", ".rst", ".txt"}


def summaries(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, str]]:
    """Candidate ``{module[, destination]}`` calls: into each new page the prompt names, or, when it
    names none, into the module's own docstring."""
    if not _SUMMARY.search(prompt):
        return []
    named = mentions(prompt)
    modules = list(dict.fromkeys(f for f in (existing_file(m, files) for m in named) if f and f.endswith(".py")))
    pages = [m for m in named if m not in files and PurePosixPath(m).suffix in _PAGE_SUFFIXES]
    if pages:
        return [{"module": m, "destination": p} for m in modules for p in pages]
    return [{"module": m} for m in modules]
