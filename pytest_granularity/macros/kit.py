"""Helpers for macro authors: what most macros' ``preconditions``, ``run`` and ``validate`` repeat.

A macro that edits a Python file opens its preconditions the same way every time: resolve the
file argument inside the workspace, check the file is there, read it and parse it, and turn each
of those failures into a reason (so the call ends as ``precondition_mismatch`` with nothing
written) rather than an exception (which would be ``executor_exception``). It then looks up a
function by ``name`` or ``Class.method``, skips a docstring, or inserts a statement after the
imports. Written once here, these steps refuse the same inputs with the same words in every macro,
and a fix reaches them all. The validation steps (does the Python still parse, do the tests pass)
are in ``checks``; the context a macro is given is ``runtime.MacroContext``.

``ScopedTransformer`` is for macros that rewrite code with libcst and must find a function by
its dotted name on the way.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import libcst as cst

from ..core.workspace import PathEscape
from .context import MacroContext

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
"""A ``def`` or ``async def`` statement: what ``find_functions`` returns."""


@dataclass(frozen=True)
class PythonFile:
    """A Python file of the workspace, read and parsed once so the checks that follow share it."""

    rel: str
    path: Path
    text: str
    tree: ast.Module


def existing_file(ctx: MacroContext, rel: str) -> tuple[Path | None, list[str]]:
    """The file ``rel`` names in the workspace, or ``None`` and why not (it is outside, or not a file).

    A path outside the workspace is a reason, not an exception: an argument the macro cannot
    use makes the call not fit, which is a precondition mismatch, not a crash of the macro.
    """
    try:
        path = ctx.path(rel)
    except PathEscape as exc:
        return None, [str(exc)]
    if not path.is_file():
        return None, [f"{rel} does not exist"]
    return path, []


def read_python(ctx: MacroContext, rel: str, *, dot_py: bool = False) -> tuple[PythonFile | None, list[str]]:
    """The Python file ``rel`` names, read and parsed; or ``None`` and the reasons the macro does not fit.

    The reasons are the precondition opening of a macro that edits one Python file: ``rel`` is
    outside the workspace, is not a file (with ``dot_py``: is not a ``.py`` file), or does not
    parse. The list is fresh, so a caller can append the reasons of its own checks to it.
    """
    try:
        path = ctx.path(rel)
    except PathEscape as exc:
        return None, [str(exc)]
    if dot_py and (path.suffix != ".py" or not path.is_file()):
        return None, [f"{rel} is not a Python file"]
    if not path.is_file():
        return None, [f"{rel} does not exist"]
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as exc:
        return None, [f"{rel} does not parse (line {exc.lineno}: {exc.msg})"]
    return PythonFile(rel, path, text, tree), []


def find_functions(tree: ast.Module, dotted: str) -> list[FunctionNode]:
    """The functions ``dotted`` names: ``name`` at the top level, or ``Class.name`` in a top-level class.

    Every match is returned, so a caller can refuse an ambiguous name (two defs of it, or two
    classes of that name each defining it) instead of editing whichever comes first.
    """
    *owners, name = dotted.split(".")
    body: list[ast.stmt] = tree.body
    for owner in owners:
        body = [item for node in body if isinstance(node, ast.ClassDef) and node.name == owner for item in node.body]
    return [node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name]


def is_docstring(statement: ast.stmt) -> TypeGuard[ast.Expr]:
    """A bare string expression: the docstring, when it is the first statement of a body."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body after its docstring: the code a macro inserts before or wraps."""
    return body[1:] if body and is_docstring(body[0]) else body


def bound_name(alias: ast.alias) -> str:
    """The name an import binds: ``a`` for ``import a.b``; ``c`` for ``import a.b as c`` or ``from a import b as c``."""
    return alias.asname or alias.name.split(".")[0]


def is_builtin_exception(name: str) -> bool:
    """Whether ``name`` is a built-in exception class, usable in ``raise`` or ``except`` without an import."""
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def parameter_defaults(args: ast.arguments) -> dict[str, ast.expr]:
    """Each parameter that has a default, with it (positional defaults belong to the last parameters)."""
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults) :], args.defaults)}
    found.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return found


def line_offsets(data: bytes) -> list[int]:
    """The byte offset where each line starts, then the length of the data.

    The ast reports positions as (line, byte column); ``offsets[line - 1] + column`` is the
    position in the file's bytes, where an edit can splice text without touching anything else.
    """
    offsets = [0]
    for line in data.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def last_line(node: ast.expr | ast.stmt) -> int:
    """The line ``node`` ends on. The parser always sets it; the ast types it optional for nodes built by hand."""
    return node.end_lineno if node.end_lineno is not None else node.lineno


def node_span(offsets: list[int], node: ast.expr | ast.stmt) -> tuple[int, int]:
    """Where ``node`` starts and ends in the file's bytes, given the file's ``line_offsets``."""
    end_column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return offsets[node.lineno - 1] + node.col_offset, offsets[last_line(node) - 1] + end_column


def insert_after_imports(source: str, statement: str) -> str:
    """``statement`` on its own line after the docstring and the leading imports (PEP 8 spacing).

    Directly before an existing module-level assignment it joins that group; before a function or
    class it is followed by two blank lines, before anything else by one.
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    end, following = 0, None
    for index, node in enumerate(tree.body):
        if (index == 0 and is_docstring(node)) or isinstance(node, (ast.Import, ast.ImportFrom)):
            end = node.end_lineno or node.lineno
            continue
        following = node
        break
    if end == 0:
        while end < len(lines) and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
            end += 1
    head, tail = "".join(lines[:end]).rstrip("\n"), "".join(lines[end:]).lstrip("\n")
    text = (head + "\n\n" if head else "") + statement + "\n"
    if not tail:
        return text
    if isinstance(following, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not tail.startswith("#"):
        return text + "\n\n" + tail
    if isinstance(following, (ast.Assign, ast.AnnAssign)) and not tail.startswith("#"):
        return text + tail
    return text + "\n" + tail


class ScopedTransformer(cst.CSTTransformer):
    """A libcst transformer that tells ``leave_function`` the dotted name of each function it leaves.

    libcst visits every def, nested ones included; a macro aimed at ``name`` or ``Class.name``
    compares the dotted name of the def it is leaving (``Class.method``, ``outer.inner``) with
    its target. Subclasses override ``leave_function``; ``scope`` holds the names of the
    enclosing classes and functions while the visit is inside them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.scope: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        qualname = ".".join(self.scope)
        self.scope.pop()
        return self.leave_function(qualname, updated_node)

    def leave_function(self, qualname: str, node: cst.FunctionDef) -> cst.FunctionDef:
        """The def ``qualname`` after its body was transformed; return it, changed or not."""
        return node
