"""The ten structural features a router may see, from pre-execution evidence only.

A router sees the task's prompt and the initial workspace (the fixture with its setup overlay),
and nothing else: not the verifier, not the reference solution, not the reference macro call,
not the intended macro fit, not the family label. ``compute`` takes exactly those two inputs,
so it cannot reach anything hidden.

The "target files" of a task are the workspace's Python files the prompt names, by path
(``pkg/mod.py``) or by dotted module name (``pkg.mod``).

1. ``file_paths``: distinct path-like tokens in the prompt (a ``/`` or a file extension).
2. ``python_files``: of those, the ones ending in ``.py``.
3. ``non_python_files``: of those, the others.
4. ``entities``: distinct entity strings in the prompt: backticked or quoted text, paths,
   dotted names and identifiers with an underscore or inner capital.
5. ``ast_nodes``: AST nodes in the target files.
6. ``ast_depth``: the deepest AST nesting in the target files.
7. ``imports``: import statements in the target files.
8. ``cross_file_deps``: other Python files of the workspace that import a target file.
9. ``is_text_task``: 1 when the prompt names a non-Python file or speaks of text (README,
   docs, docstring, message, wording, typo, summary).
10. ``is_refactor_task``: 1 when the prompt asks to move, rename, relocate, extract, split or
    refactor.

Two more say whether a macro is likely to apply; they also read the macro registry (see
``applicability``; without a registry they are 0):

11. ``retrieval_score``: the best BM25 score of any available macro for the prompt.
12. ``applicable_macros``: how many macros' declared applicability checks hold.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.modnames import dotted_name, imported_names
from ..macros.derivation import PATH_TOKEN, QUOTED_TEXT, prompt_paths

if TYPE_CHECKING:
    from ..macros import MacroRegistry

_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_IDENTIFIER = re.compile(r"\b(?:[a-z]\w*_\w+|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b")
_TEXT_WORDS = re.compile(r"\b(readme|docs?|documentation|docstring|message|wording|typo|summary|summari[sz]e)\b", re.I)
_REFACTOR_WORDS = re.compile(r"\b(move|moving|rename|renaming|relocate|extract|split|refactor)\b", re.I)


@dataclass(frozen=True)
class Features:
    file_paths: int
    python_files: int
    non_python_files: int
    entities: int
    ast_nodes: int
    ast_depth: int
    imports: int
    cross_file_deps: int
    is_text_task: int
    is_refactor_task: int
    retrieval_score: float = 0.0
    applicable_macros: int = 0

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def vector(self) -> tuple[float, ...]:
        return astuple(self)


def compute(
    prompt: str, files: Mapping[str, bytes], macros: MacroRegistry | None = None, hidden: tuple[Path, ...] = ()
) -> Features:
    """The features of a task, from its prompt, its initial workspace files and the macro registry
    only; ``hidden`` are the task's paths the macros' applicability checks are refused to read."""
    paths = prompt_paths(prompt)
    python = [p for p in paths if p.endswith(".py")]
    targets = _targets(prompt, paths, files)
    trees = [tree for tree in (_parse(files[t]) for t in targets) if tree is not None]
    features = Features(
        file_paths=len(paths),
        python_files=len(python),
        non_python_files=len(paths) - len(python),
        entities=len(_entities(prompt, paths)),
        ast_nodes=sum(sum(1 for _ in ast.walk(tree)) for tree in trees),
        ast_depth=max((_depth(tree) for tree in trees), default=0),
        imports=sum(isinstance(n, (ast.Import, ast.ImportFrom)) for tree in trees for n in ast.walk(tree)),
        cross_file_deps=_dependents(targets, files),
        is_text_task=int(len(paths) > len(python) or bool(_TEXT_WORDS.search(prompt))),
        is_refactor_task=int(bool(_REFACTOR_WORDS.search(prompt))),
    )
    return features if macros is None else _with_applicability(features, prompt, files, macros, hidden)


def _with_applicability(
    features: Features, prompt: str, files: Mapping[str, bytes], macros: MacroRegistry, hidden: tuple[Path, ...]
) -> Features:
    from .applicability import applicable_macros, retrieval_score

    return replace(
        features,
        retrieval_score=retrieval_score(prompt, macros),
        applicable_macros=len(applicable_macros(prompt, files, macros, hidden)),
    )


def _entities(prompt: str, paths: list[str]) -> set[str]:
    found = {next(g for g in m.groups() if g).rstrip("/") for m in QUOTED_TEXT.finditer(prompt)}
    found.update(paths)
    rest = PATH_TOKEN.sub(" ", prompt)
    found.update(m.group(0) for m in _DOTTED.finditer(rest) if not _is_number(m.group(0)))
    found.update(m.group(0) for m in _IDENTIFIER.finditer(rest))
    return found


def _is_number(text: str) -> bool:
    return text.replace(".", "").isdigit()


def _targets(prompt: str, paths: list[str], files: Mapping[str, bytes]) -> list[str]:
    python = [p for p in files if p.endswith(".py")]
    dotted = set(_DOTTED.findall(prompt))
    named = {p for p in python if p in paths or dotted_name(p) in dotted}
    return sorted(named)


def _parse(data: bytes) -> ast.Module | None:
    try:
        return ast.parse(data.decode("utf-8", errors="replace"))
    except SyntaxError:
        return None


def _depth(node: ast.AST) -> int:
    children = list(ast.iter_child_nodes(node))
    return 1 + max((_depth(c) for c in children), default=0)


def _dependents(targets: list[str], files: Mapping[str, bytes]) -> int:
    modules = {dotted_name(t) for t in targets}
    if not modules:
        return 0
    return sum(
        bool(imported_names(path, data) & modules)
        for path, data in files.items()
        if path.endswith(".py") and path not in targets
    )
