"""Import hooks that mirror a package name for name, and the second move a mirror makes.

toolz ships ``tlz``: a finder on ``sys.meta_path`` that serves ``tlz.X`` by importing
``"toolz" + "." + X``. Such a hook is *mechanical* when every name it imports is a string constant
joined to the requested name's tail (``''.join(["toolz", dot, rest])`` or ``"toolz." + rest``) and
it claims the names under one constant it compares with (``package == "tlz"``). Then moving
``toolz.a`` to ``toolz.sub.a`` moves ``tlz.a`` to ``tlz.sub.a`` too, and the references to the
mirror name are rewritten like any other (a second move with no files). Any other hook builds
names no import statement shows, and the move is refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .rewrite import Move
from .scope import dotted_chain, walk

IMPORT_HOOKS = ("sys.meta_path", "sys.path_hooks")
_IMPORTERS = ("import_module", "importlib.import_module", "__import__")


def installs_hook(tree: ast.Module) -> list[str]:
    """The import hook lists the file adds to (``sys.meta_path``, ``sys.path_hooks``), sorted."""
    return sorted({d for n in walk(tree) if isinstance(n, ast.Attribute) and (d := dotted_chain(n)) in IMPORT_HOOKS})


def names_package(tree: ast.Module, move: Move) -> bool:
    """Whether the file installs an import hook and spells the moved module's name or a package above it."""
    return bool(installs_hook(tree)) and any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and n.value
        and (move.old == n.value or move.old.startswith(n.value + "."))
        for n in walk(tree)
    )


def mirror(root: Path, tree: ast.Module, move: Move) -> Move | None:
    """The mirror of ``move`` when the hook in ``tree`` maps names mechanically onto its top package, else None."""
    top = move.old.partition(".")[0]
    prefixes = _import_prefixes(tree)
    if prefixes is None or top not in prefixes:
        return None
    claimed = {
        c.value
        for n in walk(tree)
        if isinstance(n, ast.Compare) and all(isinstance(op, ast.Eq) for op in n.ops)
        for c in [n.left, *n.comparators]
        if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.isidentifier()
    }
    names = sorted(n for n in claimed - {top} if (root / n / "__init__.py").is_file())
    if len(names) != 1:
        return None
    tail_old, tail_new = move.old[len(top) :], move.new[len(top) :]
    if not move.new.startswith(top + "."):
        return None
    return Move("", "", names[0] + tail_old, names[0] + tail_new, move.is_package)


def _import_prefixes(tree: ast.Module) -> set[str] | None:
    """The package names the file's dynamic imports start with, when each is a constant joined to a tail; else None."""
    built = _built_names(tree)
    prefixes: set[str] = set()
    for node in walk(tree):
        if isinstance(node, ast.Call) and dotted_chain(node.func) in _IMPORTERS:
            argument = node.args[0] if node.args else None
            prefix = _joined_prefix(argument)
            found = {prefix} if prefix else built.get(argument.id) if isinstance(argument, ast.Name) else None
            if not found:
                return None
            prefixes |= found
    return prefixes


def _built_names(tree: ast.Module) -> dict[str, set[str] | None]:
    """Each name assigned in the file, with the constant prefixes of what it is assigned (None when any is not one)."""
    built: dict[str, set[str] | None] = {}
    for node in walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    prefix, known = _joined_prefix(node.value), built.get(target.id, set())
                    built[target.id] = known | {prefix} if prefix and known is not None else None
    return built


def _joined_prefix(node: ast.expr | None) -> str | None:
    """``"pkg"`` for ``''.join(["pkg", dot, rest])`` or ``"pkg." + rest``; else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and node.func.value.value == ""
        and len(node.args) == 1
        and isinstance(node.args[0], (ast.List, ast.Tuple))
        and len(node.args[0].elts) == 3
        and all(isinstance(e, ast.Name) for e in node.args[0].elts[1:])
    ):
        head = node.args[0].elts[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.isidentifier():
            return head.value
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Constant):
        value = str(node.left.value)
        return value[:-1] if value.endswith(".") and value[:-1].isidentifier() else None
    return None
