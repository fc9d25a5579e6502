"""A recognised module move written as a macro folder: the move engine's contract, its sources as examples.

The contract is the builtin ``move_module``'s (the same engine, so the same preconditions, side effects and
validation) with the mined macro's own name, owner, provenance and examples, on probation like every mined
macro; its ``pieces`` find the move in a larger change, for partial use.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ..core.schemas import read_yaml_mapping
from ..core.workspace import write_tree
from ..macros.contract import BUILTIN_FOLDER, CONTRACT_FILE, SKILL_FILE
from .edits import Edit
from .writer import ABSENT, BREAKS_VALIDATION, FAILING_CONFTEST, OWNER, keywords_of, provenance_of, write_example

MOVE_MACRO = "mined_move_module"
ENGINE_CONTRACT = BUILTIN_FOLDER / "move-module" / CONTRACT_FILE
RUNTIME = '''"""A mined macro: a module or package moved and every reference to it rewritten (see SKILL.md)."""

from pytest_granularity.evolution.moves import derive_arguments, pieces, preconditions, run, validate

__all__ = ["derive_arguments", "pieces", "preconditions", "run", "validate"]
'''


def write_move_macro(folder: Path, edits: Sequence[Edit], calls: Sequence[Sequence[dict[str, Any]]]) -> str:
    """Write the move macro folder (replacing one there); ``calls[i]`` is the move that reproduces ``edits[i]``."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "runtime.py").write_text(RUNTIME, encoding="utf-8")
    write_tree(folder / BREAKS_VALIDATION, {"conftest.py": FAILING_CONFTEST.encode()})
    examples: list[dict[str, Any]] = []
    for edit, made in zip(edits, calls, strict=True):
        write_example(folder / "examples" / edit.source.task.id, edit, MOVE_MACRO, made[-1], dict(edit.source.before))
        examples.append({"task": f"examples/{edit.source.task.id}"})
    examples[0]["breaks_precondition"] = {"args": {**calls[0][-1], "source": f"{ABSENT}.py"}}
    examples[0]["breaks_validation"] = {"setup": BREAKS_VALIDATION}
    contract = read_yaml_mapping(ENGINE_CONTRACT) | {
        "name": MOVE_MACRO,
        "owner": OWNER,
        "trigger_hint": f"Use when the request asks to move or rename a module or package ({len(edits)} tasks "
        "of this project's history were such moves). Do not use for renames of functions or classes, or edits.",
        "pinned": False,
        "probation": True,
        "keywords": sorted({"move", "module", "package", "import", *keywords_of(edits)}),
        "pieces": {"find": "runtime:pieces", "description": "the module or package the change moves"},
        "examples": examples,
        "provenance": [provenance_of(e) for e in edits],
    }
    (folder / CONTRACT_FILE).write_text(yaml.safe_dump(contract, sort_keys=False, width=100), encoding="utf-8")
    (folder / SKILL_FILE).write_text(_skill(edits), encoding="utf-8")
    return MOVE_MACRO


def _skill(edits: Sequence[Edit]) -> str:
    front = {
        "name": MOVE_MACRO.replace("_", "-"),
        "description": "Move a Python module or package to a new path and rewrite every import and dotted "
        f"reference to it, then check the project parses and its tests pass. Mined from {len(edits)} moves.",
        "metadata": {"owner": OWNER, "version": "1.0.0"},
    }
    sources = "\n".join(f"- {e.source.task.id}: {e.source.origin}" for e in edits)
    return (
        f"---\n{yaml.safe_dump(front, sort_keys=False, width=1000)}---\n# {front['name']}\n\n"
        "Moves `source` (a `.py` module or a package folder) to `destination` and rewrites every reference to "
        "it, with the move engine the builtin `move-module` runs (its SKILL.md lists what it rewrites and what "
        "it refuses). It refuses, writing nothing, what it cannot prove safe; afterwards every Python file must "
        "parse and the tests pass; when they do not, `show_diff` shows what moved, and `search`, `edit_file` "
        "and `run_tests` finish it.\n\n"
        f"Mined by `granularity macros mine` from these moves:\n\n{sources}\n"
    )
