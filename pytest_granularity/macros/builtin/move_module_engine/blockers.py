"""What a module move cannot prove safe, found before anything is written.

Each refusal names the file and says why, in one of a few fixed phrasings (so refusals can be
counted):

- a non-Python text file names the module where ``references`` cannot place the edit (running
  prose, a data or configuration file, a package list it cannot extend);
- ``from <parent> import *`` that may bind the module's name where someone reads it (a literal
  ``__all__`` without the name, a private name, or a file that never reads the name and is not
  star-imported further, prove the star import harmless);
- the parent package's ``__init__`` reading the module's name bound only as a side effect of
  importing the submodule;
- the module reached as an attribute through a name that is not only a module binding, or
  through a module its new place is not inside;
- an f-string that spells the dotted name;
- an import hook (``sys.meta_path``, ``sys.path_hooks``) that builds module names of the
  moved module's package at run time.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from pytest_granularity.core.modnames import absolute_module, import_name, import_package

from . import hooks, references
from .rewrite import (
    Move,
    new_packages,
    project_modules,
    python_files,
    read_before_import,
    reads_side_effect_name,
    through_binding,
)
from .scope import Scope, dotted_chain, parse, read_loads, scope_of, walk


def blockers(root: Path, move: Move) -> list[str]:
    """Every reference the rewrite cannot handle, found before anything is written (for the move, and
    for the second move of each import hook that mirrors the package name for name)."""
    second = mirrors(root, move)
    found = references.plan(root, move, new_packages(root, move), second).refusals
    found += _python_blockers(root, move, hooks_allowed=True)
    for mirror in second:
        found += [f for f in _python_blockers(root, mirror, hooks_allowed=False) if f not in found]
    return found


def mirrors(root: Path, move: Move) -> list[Move]:
    """The second moves that mechanical import hooks make of the move (see ``hooks``)."""
    found: list[Move] = []
    for rel in python_files(root):
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        tree = parse(root / rel) if "meta_path" in text or "path_hooks" in text else None
        mirror = hooks.mirror(root, tree, move) if tree and hooks.names_package(tree, move) else None
        if mirror and mirror not in found:
            found.append(mirror)
    return found


def _python_blockers(root: Path, move: Move, hooks_allowed: bool) -> list[str]:
    found = []
    files = python_files(root)
    modules = project_modules(root, files)
    trees: dict[str, ast.Module] = {}
    for rel in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if move.name not in text and "import *" not in text and "meta_path" not in text and "path_hooks" not in text:
            continue
        tree = parse(root / rel)
        if tree is None:
            found.append(f"{rel} does not parse; its imports cannot be rewritten")
        else:
            trees[rel] = tree
    star_imported = {
        absolute_module(import_package(root, rel), node.module, node.level)
        for rel, tree in trees.items()
        for node in walk(tree)
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
    }
    parent_all = _parent_all(root, move, files, modules)
    for rel, tree in trees.items():
        package = import_package(root, rel)
        scope = scope_of(tree, package, modules)
        context = _File(root, rel, tree, package, scope, star_imported, parent_all, hooks_allowed)
        found.extend(f"{rel}: {problem}" for problem in _problems(context, move))
    return found


@dataclass(frozen=True)
class _File:
    """One parsed file and what the checks need to know about the project around it."""

    root: Path
    rel: str
    tree: ast.Module
    package: str
    scope: Scope
    star_imported: set[str | None]
    parent_all: list[str] | None
    hooks_allowed: bool
    """Whether an import hook naming the package is checked (False for a mirror's own move, whose
    attribute uses are checked instead: the hook mirrors only direct submodules as attributes)."""


def _problems(f: _File, move: Move) -> list[str]:
    problems = []
    for node in walk(f.tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if move.parent and absolute_module(f.package, node.module, node.level) == move.parent:
                problems.extend(_star_problem(f, move))
        elif isinstance(node, ast.Attribute):
            problems.extend(_attribute_problem(f, node, move))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _spells_escaped(node.value, move):
            problems.append(
                f"line {node.lineno} spells {move.old} escaped for a regular expression, which is not rewritten"
            )
        elif isinstance(node, ast.JoinedStr) and any(
            isinstance(v, ast.Constant) and move.old in str(v.value) for v in node.values
        ):
            problems.append(f"line {node.lineno} spells {move.old} in an f-string, which is not rewritten")
    if _reads_side_effect_name(f, move):
        problems.append(
            f"reads the name {move.name}, bound only as a side effect of importing the submodule {move.old}"
        )
    if f.hooks_allowed and hooks.names_package(f.tree, move) and hooks.mirror(f.root, f.tree, move) is None:
        problems.append(
            f"installs an import hook ({', '.join(hooks.installs_hook(f.tree))}) "
            f"that builds module names of {move.old.partition('.')[0]} at run time"
        )
    return problems


def _spells_escaped(value: str, move: Move) -> bool:
    """Whether a string holds the dotted name as ``re.escape`` writes it (``pkg\\.a``), as a test's expected
    message may (the move changes what such a pattern must match, and only whole dotted strings are rewritten)."""
    return "." in move.old and re.search(rf"(?<![\w\\]){re.escape(re.escape(move.old))}(?!\w)", value) is not None


def _reads_side_effect_name(f: _File, move: Move) -> bool:
    """The parent's ``__init__`` reading ``mod`` that only ``import parent.mod`` bound (no import names it),
    before any top-level import of it (after one, the rewrite binds the name explicitly)."""
    if not f.rel.endswith("__init__.py") or import_name(f.root, f.rel) != move.parent:
        return False
    absolute = ast.parse(ast.unparse(f.tree))
    for node in walk(absolute):
        if isinstance(node, ast.ImportFrom) and node.level:
            node.module, node.level = absolute_module(f.package, node.module, node.level), 0
    return reads_side_effect_name(f.tree, f.scope, move) and read_before_import(absolute, move)


def _star_problem(f: _File, move: Move) -> list[str]:
    """``from <parent> import *``: harmless when it cannot bind the name, or nobody reads what it binds."""
    star = f"'from {move.parent} import *'"
    if f.parent_all is not None:
        if move.name not in f.parent_all:
            return []
        return [f"{star} binds {move.name} through {move.parent}.__all__, which names the submodule"]
    if move.name.startswith("_"):
        return []
    if move.name in read_loads(f.tree) and move.name not in f.scope.modules:
        return [f"{star} may bind {move.name} (no literal __all__), and this file reads that name"]
    if import_name(f.root, f.rel) in f.star_imported:
        return [f"{star} may bind {move.name} (no literal __all__), and this file is star-imported further"]
    return []


def _attribute_problem(f: _File, node: ast.Attribute, move: Move) -> list[str]:
    dotted = dotted_chain(node)
    if not dotted:
        return []
    head = dotted.partition(".")[0]
    if (
        head in f.scope.modules
        and head in f.scope.unsure
        and f"{f.scope.modules[head]}{dotted[len(head) :]}" == move.old
    ):
        return [f"line {node.lineno} reaches {move.old} through the name {head}, which is bound to more than a module"]
    if f.scope.resolve(dotted) == move.old and through_binding(f.scope, dotted, move) is None:
        return [
            f"line {node.lineno} reaches {move.old} through {head} (module {f.scope.modules[head]}), "
            f"and its new place {move.new} is not inside that module"
        ]
    if (
        node.attr == "__package__"
        and not move.is_package
        and f.scope.resolve(dotted_chain(node.value)) == move.old
        and move.new.rpartition(".")[0] != move.parent
    ):
        return [f"line {node.lineno} reads the package of {move.old} (__package__), which the move changes"]
    if (
        not f.hooks_allowed
        and f.scope.resolve(dotted) == move.old
        and f.scope.modules[head] != move.old
        and move.new.rpartition(".")[0] != move.parent
        and not _imports_plainly(f.tree, move.old)
    ):
        return [
            f"line {node.lineno} reaches {move.old} as an attribute of {f.scope.modules[head]}, which the import "
            f"hook fills in only for modules directly inside it, and {move.new} is not"
        ]
    return []


def _imports_plainly(tree: ast.Module, module: str) -> bool:
    """Whether the file has ``import <module>`` (no alias), which binds it as an attribute of its parent."""
    return any(
        isinstance(n, ast.Import) and any(a.name == module and not a.asname for a in n.names) for n in walk(tree)
    )


def _parent_all(root: Path, move: Move, files: list[str], modules: set[str]) -> list[str] | None:
    """The names ``from <parent> import *`` binds that matter: the parent's ``__all__`` when it is one
    literal list or tuple of strings (less the module's name when the parent imports the module
    under that name itself, since that binding is rewritten and kept), else None."""
    init = next((rel for rel in files if rel.endswith("__init__.py") and import_name(root, rel) == move.parent), None)
    tree = parse(root / init) if init else None
    if init is None or tree is None:
        return None
    if any(
        isinstance(n, ast.Attribute) and dotted_chain(n) in ("__all__.extend", "__all__.append") for n in walk(tree)
    ):
        return None
    values = [
        node.value
        for node in walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in getattr(node, "targets", [getattr(node, "target", None)])
        )
    ]
    if len(values) != 1 or not isinstance(values[0], (ast.List, ast.Tuple)):
        return None
    names = [e.value for e in values[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(names) != len(values[0].elts):
        return None
    if move.name in names and scope_of(tree, import_package(root, init), modules).modules.get(move.name) == move.old:
        names.remove(move.name)
    return names
