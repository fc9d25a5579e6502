"""What the names in one Python file are bound to, as far as a move needs to know.

A moved module is often reached as an attribute of something an import bound: ``import pkg``
then ``pkg.mod.x``, ``import pkg.sub as s`` then ``s.mod.x``. Rewriting ``pkg.mod`` is safe only
when the name ``pkg`` means the module ``pkg`` everywhere in the file; a name that is also
assigned, defined, a parameter or imported as two different things is *unsure*, and a move that
would need to rewrite through it is refused instead.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from pytest_granularity.core.modnames import absolute_module


@dataclass
class Scope:
    modules: dict[str, str] = field(default_factory=dict)
    """Local name -> the module it is bound to by an import statement."""
    unsure: set[str] = field(default_factory=set)
    """Names bound by anything else as well (or to two different modules)."""

    def bind(self, name: str, module: str | None) -> None:
        if module is None or self.modules.get(name, module) != module:
            self.unsure.add(name)
        else:
            self.modules[name] = module

    def resolve(self, dotted: str | None) -> str | None:
        """The absolute dotted name ``a.b.c`` stands for, when ``a`` is bound to a module."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        module = self.modules.get(head)
        if module is None or head in self.unsure:
            return None
        return f"{module}.{rest}" if rest else module


_WALKED: weakref.WeakKeyDictionary[ast.AST, list[ast.AST]] = weakref.WeakKeyDictionary()


def walk(tree: ast.AST) -> list[ast.AST]:
    """``ast.walk(tree)``'s nodes in its order, listed once per tree: the checks of one move walk each file's
    tree a dozen times, and ``ast.walk`` (a generator over every field of every node) was most of their cost.
    The trees are never changed once parsed."""
    nodes = _WALKED.get(tree)
    if nodes is None:
        nodes = _WALKED[tree] = list(ast.walk(tree))
    return nodes


def scope_of(tree: ast.Module, package: str, modules: set[str]) -> Scope:
    """Every name bound in the file (any function, any class: a file-wide, conservative view)."""
    scope = Scope()
    for node in walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    scope.bind(alias.asname, alias.name)
                else:
                    top = alias.name.partition(".")[0]
                    scope.bind(top, top)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(package, node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    continue
                full = f"{base}.{alias.name}" if base else None
                scope.bind(alias.asname or alias.name, full if full in modules else None)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            scope.unsure.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope.unsure.add(node.name)
        elif isinstance(node, ast.arg):
            scope.unsure.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.unsure.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.unsure.add(node.name)
    return scope


def dotted_chain(node: ast.expr) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted_chain(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def read_loads(tree: ast.AST) -> set[str]:
    """Every name the file reads."""
    return {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return None
