"""A recognised change kind written as a macro folder: its engine's contract, its sources as examples.

A module move and a text replacement are changes no shape of holes spans; the miner recognises them
(``moves``, ``replaced``) and carries them out with the engine a builtin macro runs. The contract is that
builtin's (the same engine, so the same preconditions, side effects and validation) with the mined macro's
own name, owner, trigger, provenance and examples, on probation like every mined macro; its ``pieces`` find
the kind in a larger change, for partial use.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.schemas import read_yaml_mapping
from ..core.workspace import write_tree
from ..macros.contract import BUILTIN_FOLDER, CONTRACT_FILE, SKILL_FILE
from .edits import Edit
from .writer import ABSENT, BREAKS_VALIDATION, FAILING_CONFTEST, OWNER, keywords_of, provenance_of, write_example

RUNTIME = '''"""A mined macro: {summary} (see SKILL.md)."""

from pytest_granularity.evolution.{module} import derive_arguments, pieces, preconditions, run, validate

__all__ = ["derive_arguments", "pieces", "preconditions", "run", "validate"]
'''


@dataclass(frozen=True)
class EngineKind:
    """A change kind the miner recognises, and what its macro folder says."""

    name: str
    builtin: str
    """The builtin macro folder whose contract (and engine) the mined macro shares."""
    module: str
    """The ``evolution`` module its runtime binds."""
    summary: str
    before: str
    after: str
    """The change, as ``mined-macros.json`` describes a shape's two sides."""
    trigger: str
    """When to use it; ``{count}`` is the number of source tasks."""
    keywords: tuple[str, ...]
    absent: str
    """The parameter that, set to a value no workspace has, must make the preconditions refuse the call."""
    pieces: str
    skill: str
    """SKILL.md's body before the list of sources."""

    def write(self, folder: Path, edits: Sequence[Edit], calls: Sequence[Sequence[dict[str, Any]]]) -> str:
        """Write the macro folder (replacing one there); ``calls[i]`` reproduces ``edits[i]``."""
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / "runtime.py").write_text(RUNTIME.format(summary=self.summary, module=self.module), "utf-8")
        write_tree(folder / BREAKS_VALIDATION, {"conftest.py": FAILING_CONFTEST.encode()})
        examples: list[dict[str, Any]] = []
        for edit, made in zip(edits, calls, strict=True):
            task = edit.source.task.id
            write_example(folder / "examples" / task, edit, self.name, made[-1], dict(edit.source.before))
            examples.append({"task": f"examples/{task}"})
        absent = ABSENT + (".py" if self.absent == "source" else "")
        examples[0]["breaks_precondition"] = {"args": {**calls[0][-1], self.absent: absent}}
        examples[0]["breaks_validation"] = {"setup": BREAKS_VALIDATION}
        contract = read_yaml_mapping(BUILTIN_FOLDER / self.builtin / CONTRACT_FILE) | {
            "name": self.name,
            "owner": OWNER,
            "trigger_hint": self.trigger.format(count=len(edits)),
            "pinned": False,
            "probation": True,
            "keywords": sorted({*self.keywords, *keywords_of(edits)}),
            "pieces": {"find": "runtime:pieces", "description": self.pieces},
            "examples": examples,
            "provenance": [provenance_of(e) for e in edits],
        }
        (folder / CONTRACT_FILE).write_text(yaml.safe_dump(contract, sort_keys=False, width=100), encoding="utf-8")
        (folder / SKILL_FILE).write_text(self._skill(edits), encoding="utf-8")
        return self.name

    def _skill(self, edits: Sequence[Edit]) -> str:
        front = {
            "name": self.name.replace("_", "-"),
            "description": f"{self.summary[0].upper()}{self.summary[1:]}. Mined from {len(edits)} such changes.",
            "metadata": {"owner": OWNER, "version": "1.0.0"},
        }
        sources = "\n".join(f"- {e.source.task.id}: {e.source.origin}" for e in edits)
        return (
            f"---\n{yaml.safe_dump(front, sort_keys=False, width=1000)}---\n# {front['name']}\n\n{self.skill}\n\n"
            f"Mined by `granularity macros mine` from these changes:\n\n{sources}\n"
        )


MOVE = EngineKind(
    name="mined_move_module",
    builtin="move-module",
    module="moves",
    summary="a module or package moved and every reference to it rewritten",
    before="a module or package at `{source}`",
    after="moved to `{destination}`, its references rewritten",
    trigger="Use when the request asks to move or rename a module or package ({count} tasks of this project's "
    "history were such moves). Do not use for renames of functions or classes, or edits.",
    keywords=("move", "module", "package", "import"),
    absent="source",
    pieces="the module or package the change moves",
    skill="Moves `source` (a `.py` module or a package folder) to `destination` and rewrites every reference to "
    "it, with the move engine the builtin `move-module` runs (its SKILL.md lists what it rewrites and what it "
    "refuses). It refuses, writing nothing, what it cannot prove safe; afterwards every Python file must parse "
    "and the tests pass; when they do not, `show_diff` shows what moved, and `search`, `edit_file` and "
    "`run_tests` finish it.",
)
REPLACE = EngineKind(
    name="mined_replace_text",
    builtin="replace-and-verify",
    module="replaced",
    summary="one text replaced by another, once in each named file of any kind",
    before="`{old}` once in each of `{files}`",
    after="`{new}` in its place",
    trigger="Use when the request states a text to replace and its new value, in code, configuration or docs "
    "({count} tasks of this project's history replaced one text so in every file they changed). Do not use when "
    "the text occurs several times in a file or the change needs other edits.",
    keywords=("replace", "text", "value", "version", "rename", "typo"),
    absent="old",
    pieces="the text most of the change's files replace",
    skill="Replaces `old` by `new` once in each of `files` (code, configuration, docs), with the engine the "
    "builtin `replace-and-verify` runs. It refuses, writing nothing, when a file lacks the text or holds it more "
    "than once; afterwards the changed Python files must parse and the tests pass; when they do not, `show_diff` "
    "shows the edit, and `search`, `edit_file` and `run_tests` finish it. It proposes only the replacements a "
    "request states (from one value to another, a named constant's new value).",
)
