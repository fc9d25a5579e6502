"""A module's surface as its syntax tree gives it: each function, method, class and module-level name, with
the signature a caller writes, so that two versions of a module compare without importing either.

Read from the tree alone, so a name made at run time (``globals()[...]``, a decorator that renames) is not
seen, and only the first definition of a name counts (a property's setter does not replace its getter).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from ..macros.kit import FunctionNode, without_docstring

Scope = ast.Module | ast.ClassDef
SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class Definition:
    """One name a module defines, at the top level or in a class (``Box.area``)."""

    qualname: str
    kind: str
    """``function``, ``class`` or ``name`` (an assignment)."""
    signature: str
    """What a caller writes: ``ellipsize(text, width=10)``; a method without its ``self`` or ``cls``
    (``Box.area(unit)``); a class by its ``__init__``'s parameters when it has one (``Box(width)``), else
    by its name; a property or a name bare (``Box.size``, ``VERSION``)."""
    doc: str
    """The docstring's first sentence; empty when there is none."""
    body: str
    """The code less its docstring: two names with the same body are one definition renamed."""
    after: str
    """The definition before it in its scope (empty when first): a name replaced where it stood is renamed."""

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def owner(self) -> str:
        return self.qualname.rpartition(".")[0]


@dataclass(frozen=True)
class Surface:
    """A module's docstring's first sentence and its definitions, by qualified name in the order written."""

    doc: str
    definitions: dict[str, Definition]


def surface(source: bytes) -> Surface | None:
    """The module's surface; None when it does not parse."""
    tree = parse(source)
    if tree is None:
        return None
    found: dict[str, Definition] = {}
    for definition in _scope(tree, ""):
        found.setdefault(definition.qualname, definition)
    return Surface(_summary(ast.get_docstring(tree)), found)


def parse(source: bytes) -> ast.Module | None:
    """The file's syntax tree; None when it does not parse (another Python's syntax, a broken file)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an old file's invalid escapes are not this reader's concern
            return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _scope(scope: Scope, prefix: str) -> Iterator[Definition]:
    after = ""
    for node, name in _named(scope.body):
        qualname = prefix + name
        if isinstance(node, ast.ClassDef):
            yield _definition(node, qualname, "class", _class_signature(node, qualname), after)
            yield from _scope(node, qualname + ".")
        elif isinstance(node, FunctionNode):
            signature = _function_signature(node, qualname, isinstance(scope, ast.ClassDef))
            yield _definition(node, qualname, "function", signature, after)
        else:
            yield Definition(qualname, "name", qualname, "", ast.dump(node), after)
        after = qualname


def _named(body: list[ast.stmt]) -> Iterator[tuple[ast.AST, str]]:
    """Each statement of a body that binds a name, with it; the branches of an ``if`` or a ``try`` too,
    which is how a module defines a name one way or another."""
    for node in body:
        if isinstance(node, FunctionNode | ast.ClassDef):
            yield node, node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(element, ast.Name):
                        yield (node.value or node), element.id
        elif isinstance(node, ast.If):
            yield from _named(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _named(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody)


def _definition(node: ast.ClassDef | FunctionNode, qualname: str, kind: str, signature: str, after: str) -> Definition:
    body = ast.dump(ast.Module(body=without_docstring(node.body), type_ignores=[]))
    return Definition(qualname, kind, signature, _summary(ast.get_docstring(node)), body, after)


def _function_signature(node: FunctionNode, qualname: str, method: bool) -> str:
    decorators = {ast.unparse(d).rpartition(".")[2] for d in node.decorator_list}
    if decorators & {"property", "cached_property", "setter"}:
        return qualname
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{qualname}({_parameters(node.args, method and 'staticmethod' not in decorators)}){returns}"


def _class_signature(node: ast.ClassDef, qualname: str) -> str:
    init = next(
        (s for s in node.body if isinstance(s, FunctionNode) and s.name == "__init__"),
        None,
    )
    return qualname if init is None else f"{qualname}({_parameters(init.args, bound=True)})"


def _parameters(arguments: ast.arguments, bound: bool) -> str:
    """The parameters spaced as PEP 8 spaces them (``ast.unparse`` writes ``width: int=10``); a bound
    method's first one, its ``self`` or ``cls``, left out: no caller passes it."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    parts = [_parameter(arg, default) for arg, default in zip(positional, defaults, strict=True)]
    skipped = 1 if bound and positional else 0
    parts = parts[skipped:]
    if len(arguments.posonlyargs) > skipped:
        parts.insert(len(arguments.posonlyargs) - skipped, "/")
    if arguments.vararg:
        parts.append("*" + _parameter(arguments.vararg, None))
    elif arguments.kwonlyargs:
        parts.append("*")
    parts.extend(
        _parameter(arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    )
    if arguments.kwarg:
        parts.append("**" + _parameter(arguments.kwarg, None))
    return ", ".join(parts)


def _parameter(arg: ast.arg, default: ast.expr | None) -> str:
    text = f"{arg.arg}: {ast.unparse(arg.annotation)}" if arg.annotation else arg.arg
    if default is None:
        return text
    return f"{text} = {ast.unparse(default)}" if arg.annotation else f"{text}={ast.unparse(default)}"


def _summary(doc: str | None) -> str:
    """The docstring's first sentence, on one line: a first line that wraps mid-sentence would end the
    interface's line halfway through a thought. Its whole first paragraph when no sentence ends in it."""
    paragraph = " ".join((doc or "").strip().split("\n\n", 1)[0].split())
    return SENTENCE_END.split(paragraph, maxsplit=1)[0]
