"""Moving a Python module or package and rewriting every reference to it, with libcst.

Handled (and tested one by one): ``import a.b`` with ``a.b.x`` uses, ``import a.b as m``,
``from a.b import x``, ``from a import b``, ``from a import b as c`` (split out of a longer
``from a import b, d``), relative imports (``from . import b``, ``from .b import x``,
``from ..b import x``, rewritten as absolute imports), the moved module's own relative imports
(made absolute, since its package changed), ``a.b`` reached as an attribute of a module an
import bound (``import a`` then ``a.b.x``, ``import a as p`` then ``p.b.x``), and exact dotted
strings such as ``mock.patch("a.b.x")``. Module names follow the import root, so a src layout
(``src/a/b.py`` is ``a.b``) moves like any other.

What cannot be proven safe is refused before any write (see ``blockers``). Dynamic
imports built at run time (``import_module("a." + name)``) cannot be seen; the macro's
validation (the tests) is what catches them.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import libcst as cst
from libcst.helpers import (
    get_absolute_module_from_package_for_import,
    get_full_name_for_node,
)

from pytest_granularity.core.modnames import absolute_module, import_name, import_package

from .scope import Scope, read_loads, scope_of, walk


@dataclass(frozen=True)
class Move:
    old_path: str
    new_path: str
    old: str
    new: str
    is_package: bool

    def map(self, dotted: str | None) -> str | None:
        """The new dotted name for ``dotted`` if it is the moved module or inside it."""
        if dotted and (dotted == self.old or dotted.startswith(self.old + ".")):
            return self.new + dotted[len(self.old) :]
        return None

    def inside(self, rel: str) -> bool:
        return rel == self.old_path or rel.startswith(self.old_path + "/")

    @property
    def parent(self) -> str:
        return self.old.rpartition(".")[0]

    @property
    def name(self) -> str:
        return self.old.rpartition(".")[2]


def plan(root: Path, source: str, destination: str, is_package: bool) -> Move:
    old_path, new_path = source.rstrip("/"), destination.rstrip("/")
    return Move(old_path, new_path, import_name(root, old_path), import_name(root, new_path), is_package)


def python_files(root: Path) -> list[str]:
    from pytest_granularity.core.workspace import iter_files

    return [p.relative_to(root).as_posix() for p in iter_files(root) if p.suffix == ".py" and not p.is_symlink()]


def project_modules(root: Path, files: list[str]) -> set[str]:
    """Dotted names of every module and package of the project."""
    return {import_name(root, rel) for rel in files}


def apply(root: Path, move: Move, mirrors: Sequence[Move] = ()) -> list[str]:
    """Move the files, add missing ``__init__.py`` files, rewrite references (to the moved module and to
    each mirror name an import hook gives it); returns rewritten files."""
    files = python_files(root)
    modules = project_modules(root, files)
    old, new = root / move.old_path, root / move.new_path
    ensure_packages(root, PurePosixPath(move.new_path).parent)
    new.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(old), str(new))
    rewritten = []
    for rel in python_files(root):
        moved_from = _old_location(rel, move)
        source = (root / rel).read_text(encoding="utf-8")
        if moved_from is None and move.name not in source:
            continue
        package = import_package(root, moved_from or rel)
        init = rel.endswith("__init__.py") and import_name(root, rel) == move.parent
        result = _rewrite(source, package, move, moved_from is not None, modules, init)
        for mirror in mirrors:
            result = _rewrite(result, package, mirror, False, modules)
        if result != source:
            (root / rel).write_text(result, encoding="utf-8")
            rewritten.append(rel)
    return rewritten


def new_packages(root: Path, move: Move) -> list[str]:
    """The dotted names of the packages the move creates (missing folders on the way to its destination)."""
    folder = PurePosixPath(move.new_path).parent
    prefixes = ["/".join(folder.parts[:depth]) for depth in range(1, len(folder.parts) + 1)]
    return [import_name(root, p) for p in prefixes if not (root / p).exists()]


def ensure_packages(root: Path, folder: PurePosixPath) -> list[Path]:
    """Each missing folder on the way to ``folder`` made a package (an empty ``__init__.py``); the ones made."""
    made = []
    for depth in range(1, len(folder.parts) + 1):
        directory = root.joinpath(*folder.parts[:depth])
        if not directory.exists():
            directory.mkdir()
            (directory / "__init__.py").write_text("")
            made.append(directory)
    return made


def _old_location(rel: str, move: Move) -> str | None:
    """Where a file that is now at ``rel`` was before the move (None if it did not move)."""
    if rel == move.new_path or rel.startswith(move.new_path + "/"):
        return move.old_path + rel[len(move.new_path) :]
    return None


def _rewrite(source: str, package: str, move: Move, inside: bool, modules: set[str], init: bool = False) -> str:
    tree = ast.parse(source)
    scope = scope_of(tree, package, modules)
    code = cst.parse_module(source).visit(_Rewriter(move, package, inside, scope)).code
    return _bind_name(code, move) if init and reads_side_effect_name(tree, scope, move) else code


def reads_side_effect_name(tree: ast.Module, scope: Scope, move: Move) -> bool:
    """The parent's ``__init__`` (``tree``) reads (or ``del``s) ``mod``, bound only by importing ``parent.mod``."""
    deleted = {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
    stored = {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    only_deleted = move.name in deleted - stored and move.name not in _defined(tree)
    used = move.name in read_loads(tree) or only_deleted
    return used and move.name not in scope.modules and (move.name not in scope.unsure or only_deleted)


def _defined(tree: ast.Module) -> set[str]:
    """Names a ``def`` or ``class`` binds anywhere in the file."""
    return {n.name for n in walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def read_before_import(tree: ast.Module, move: Move) -> bool:
    """Whether the module's name is read before (or without) a top-level statement of ``tree`` importing it."""
    for statement in tree.body:
        if move.name in read_loads(statement):
            return True
        if _imports(statement, move.old):
            return False
    return True


def _imports(statement: ast.stmt, module: str) -> bool:
    """Whether a top-level statement (relative imports resolved already, or absolute) imports ``module``."""
    inside = (module, module + ".")
    if isinstance(statement, ast.Import):
        return any(a.name == module or a.name.startswith(inside[1]) for a in statement.names)
    return (
        isinstance(statement, ast.ImportFrom)
        and bool(statement.module)
        and statement.level == 0
        and (statement.module == module or str(statement.module).startswith(inside[1]))
    )


def _bind_name(code: str, move: Move) -> str:
    """After the parent's first import of the moved module, bind its old name explicitly, as the import system
    did as a side effect (the rewritten import no longer binds it)."""
    module = cst.parse_module(code)
    body = list(module.body)
    parent, _, name = move.new.rpartition(".")
    alias = "" if name == move.name else f" as {move.name}"
    for index, statement in enumerate(body):
        parsed = ast.parse(module.code_for_node(statement)).body
        if parsed and _imports(parsed[0], move.new):
            body.insert(index + 1, cst.parse_statement(f"from {parent} import {name}{alias}\n"))
            return module.with_changes(body=body).code
    return code


_ENTRY_POINT = re.compile(r"^(\s*[\w.-]+\s*=\s*)?([\w.]+)(\s*:\s*[\w.]+(?:\s*\[[\w,\s-]*\])?\s*)$")


def map_string(move: Move, value: str) -> str | None:
    """A string's new value when it is exactly a dotted name in the moved module or an entry point
    into it (``"pkg.a:main"``, ``"tool = pkg.a:main"``, as ``setup.py`` and plugin registries spell them)."""
    mapped = move.map(value)
    if mapped:
        return mapped
    entry = _ENTRY_POINT.match(value)
    target = move.map(entry.group(2)) if entry and entry.group(3) else None
    return f"{entry.group(1) or ''}{target}{entry.group(3)}" if entry and target else None


def through_binding(scope: Scope, dotted: str, move: Move) -> str | None:
    """How to spell the moved module's new name through the binding ``dotted`` starts with, if possible."""
    head = dotted.partition(".")[0]
    bound = scope.modules[head]
    if move.new.startswith(bound + "."):
        return head + move.new[len(bound) :]
    return None


class _Rewriter(cst.CSTTransformer):
    def __init__(self, move: Move, package: str, inside: bool, scope: Scope) -> None:
        self.move = move
        self.package = package
        self.inside = inside
        self.scope = scope
        self._in_import = 0
        self._in_from = 0

    def visit_Import(self, node: cst.Import) -> None:
        self._in_import += 1

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        self._in_import -= 1
        return updated

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_from += 1

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        self._in_from -= 1
        return updated

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias) -> cst.ImportAlias:
        if self._in_import:
            mapped = self.move.map(get_full_name_for_node(updated.name))
            if mapped:
                return updated.with_changes(name=_dotted_node(mapped))
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if self._in_import or self._in_from:
            return updated
        dotted = get_full_name_for_node(updated)
        if dotted and self.scope.resolve(dotted) == self.move.old:
            spelled = through_binding(self.scope, dotted, self.move)
            if spelled:
                return _dotted_node(spelled)
        return updated

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
        value = updated.evaluated_value
        mapped = map_string(self.move, value) if isinstance(value, str) and "." in value else None
        if not mapped:
            return updated
        prefix_len = len(updated.prefix) + len(updated.quote)
        return updated.with_changes(
            value=updated.value[:prefix_len] + mapped + updated.value[len(updated.value) - len(updated.quote) :]
        )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        lines: list[cst.BaseStatement] = []
        for statement in updated.body:
            if isinstance(statement, cst.ImportFrom):
                lines.extend(updated.with_changes(body=[s]) for s in self._import_from(statement))
            else:
                lines.append(updated.with_changes(body=[statement]))
        if len(lines) == 1 and len(updated.body) == 1:
            return lines[0]
        return cst.FlattenSentinel(lines)

    def _import_from(self, node: cst.ImportFrom) -> list[cst.ImportFrom]:
        if node.relative:
            absolute = get_absolute_module_from_package_for_import(self.package, node)
        else:
            assert node.module is not None, "only a relative import may name no module"
            absolute = get_full_name_for_node(node.module)
        if absolute is None or self._stays_inside(node):
            return [node]
        mapped = self.move.map(absolute)
        if mapped:
            return [_absolute_from(node, mapped)]
        if isinstance(node.names, cst.ImportStar):
            return [self._outside(node, absolute)]
        moved = [a for a in node.names if f"{absolute}.{a.name.value}" == self.move.old]
        if not moved:
            return [self._outside(node, absolute)]
        rest = [a for a in node.names if a not in moved]
        new_parent, _, new_name = self.move.new.rpartition(".")
        statements = []
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            statements.append(self._outside(node.with_changes(names=rest), absolute))
        for alias in moved:
            bound = cst.ensure_type(alias.asname.name if alias.asname else alias.name, cst.Name).value
            asname = None if bound == new_name else cst.AsName(name=cst.Name(bound))
            statements.append(
                cst.ImportFrom(
                    module=_dotted_node(new_parent), names=[cst.ImportAlias(name=cst.Name(new_name), asname=asname)]
                )
            )
        return statements

    def _stays_inside(self, node: cst.ImportFrom) -> bool:
        """A relative import between two files of a moved package: it means the same after the move, so it
        stays as written (made absolute, a copy of the package executed under another name, as an import
        hook may do, would import the original's modules instead of its own)."""
        if not (self.inside and node.relative):
            return False
        base = absolute_module(self.package, None, len(node.relative))
        return self.move.map(base) is not None

    def _outside(self, node: cst.ImportFrom, absolute: str) -> cst.ImportFrom:
        """A moved file's relative import of something outside the moved unit must become absolute."""
        if self.inside and node.relative and not self.move.map(absolute):
            return _absolute_from(node, absolute)
        return node


def _absolute_from(node: cst.ImportFrom, module: str) -> cst.ImportFrom:
    return node.with_changes(module=_dotted_node(module), relative=[], whitespace_after_from=cst.SimpleWhitespace(" "))


def _dotted_node(dotted: str) -> cst.Attribute | cst.Name:
    node = cst.parse_expression(dotted)
    assert isinstance(node, (cst.Attribute, cst.Name))
    return node
