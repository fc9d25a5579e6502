"""The helpers for macro authors: the precondition opening, function lookup and source edits."""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from macro_helpers import workspace

from pytest_granularity import MacroContext
from pytest_granularity.macros.kit import (
    ScopedTransformer,
    bound_name,
    existing_file,
    find_functions,
    insert_after_imports,
    is_builtin_exception,
    is_docstring,
    last_line,
    line_offsets,
    node_span,
    parameter_defaults,
    read_python,
    without_docstring,
)

SOURCE = '''
"""A module."""

import os


class Shape:
    def area(self):
        return 0

    async def grow(self):
        pass


def area():
    def inner():
        pass

    return 1
'''


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path / "ws"
    files = {"pkg/shapes.py": SOURCE, "pkg/broken.py": "def f(:\n", "notes.txt": "x = 1\n", "pkg/sub/keep": ""}
    return MacroContext(workspace(root, files), {})


def test_read_python_reads_and_parses_the_file(ctx):
    source, reasons = read_python(ctx, "pkg/shapes.py")
    assert reasons == []
    assert source is not None
    assert source.rel == "pkg/shapes.py"
    assert source.path == ctx.root / "pkg" / "shapes.py"
    assert source.text == source.path.read_text(encoding="utf-8")
    assert [type(node).__name__ for node in source.tree.body][:2] == ["Expr", "Import"]


@pytest.mark.parametrize(
    ("rel", "dot_py", "reason"),
    [
        ("pkg/missing.py", False, "pkg/missing.py does not exist"),
        ("pkg/sub", False, "pkg/sub does not exist"),
        ("pkg/broken.py", False, "pkg/broken.py does not parse (line 1: invalid syntax)"),
        ("notes.txt", True, "notes.txt is not a Python file"),
        ("pkg/missing.py", True, "pkg/missing.py is not a Python file"),
    ],
)
def test_read_python_says_why_the_file_does_not_fit(ctx, rel, dot_py, reason):
    assert read_python(ctx, rel, dot_py=dot_py) == (None, [reason])


def test_read_python_accepts_any_name_unless_told_to_require_dot_py(ctx):
    source, reasons = read_python(ctx, "notes.txt")
    assert source is not None and reasons == []


def test_a_path_outside_the_workspace_is_a_reason_not_an_exception(ctx):
    for found, reasons in (read_python(ctx, "../outside.py"), existing_file(ctx, "../outside.py")):
        assert found is None
        assert len(reasons) == 1 and "outside.py" in reasons[0]


def test_the_reasons_are_a_fresh_list_each_call(ctx):
    _, first = read_python(ctx, "pkg/shapes.py")
    first.append("the caller's own reason")
    assert read_python(ctx, "pkg/shapes.py")[1] == []


def test_existing_file(ctx):
    assert existing_file(ctx, "notes.txt") == (ctx.root / "notes.txt", [])
    assert existing_file(ctx, "pkg/sub") == (None, ["pkg/sub does not exist"])


def test_find_functions_by_name_or_class_and_name():
    tree = ast.parse(SOURCE)
    assert [(f.name, f.lineno) for f in find_functions(tree, "area")] == [("area", 15)]
    assert [f.lineno for f in find_functions(tree, "Shape.area")] == [8]
    assert isinstance(find_functions(tree, "Shape.grow")[0], ast.AsyncFunctionDef)
    assert find_functions(tree, "inner") == []
    assert find_functions(tree, "Circle.area") == []
    assert find_functions(tree, "os") == []


def test_find_functions_returns_every_match_so_callers_can_refuse_an_ambiguous_name():
    tree = ast.parse("def f(): pass\ndef f(): pass\nclass A:\n    def g(self): pass\nclass A:\n    def g(self): pass\n")
    assert len(find_functions(tree, "f")) == 2
    assert len(find_functions(tree, "A.g")) == 2


def test_docstrings():
    function = ast.parse('def f():\n    """Doc."""\n    return 1\n').body[0]
    assert isinstance(function, ast.FunctionDef)
    assert is_docstring(function.body[0])
    assert not is_docstring(function.body[1])
    assert without_docstring(function.body) == function.body[1:]
    assert not is_docstring(ast.parse('f"{x}"').body[0])
    assert not is_docstring(ast.parse("1").body[0])
    only = ast.parse("x = 1\ny = 2").body
    assert without_docstring(only) == only
    assert without_docstring([]) == []


@pytest.mark.parametrize(
    ("statement", "names"),
    [
        ("import a.b", ["a"]),
        ("import a.b as c", ["c"]),
        ("from a import b, c as d", ["b", "d"]),
        ("from . import x", ["x"]),
    ],
)
def test_bound_name(statement, names):
    node = ast.parse(statement).body[0]
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    assert [bound_name(alias) for alias in node.names] == names


def test_is_builtin_exception():
    assert is_builtin_exception("ValueError")
    assert is_builtin_exception("KeyboardInterrupt")
    assert not is_builtin_exception("len")
    assert not is_builtin_exception("object")
    assert not is_builtin_exception("NoSuchError")


def test_parameter_defaults():
    function = ast.parse("def f(a, /, b=1, c=2, *args, d, e=3, **kw): pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    found = parameter_defaults(function.args)
    assert {name: ast.unparse(value) for name, value in found.items()} == {"b": "1", "c": "2", "e": "3"}


def test_line_offsets_turn_ast_positions_into_byte_offsets():
    text = 'a = "é"\r\nb = 2\rc = 3\n'
    data = text.encode("utf-8")
    offsets = line_offsets(data)
    assert offsets == [0, 10, 16, 22]
    constants = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Constant)]
    assert [data[slice(*node_span(offsets, node))].decode("utf-8") for node in constants] == ['"é"', "2", "3"]
    assert line_offsets(b"") == [0]


def test_node_span_covers_a_node_over_several_lines():
    text = "x = (1 +\n     2)\n"
    statement = ast.parse(text).body[0]
    assert last_line(statement) == 2
    start, end = node_span(line_offsets(text.encode()), statement)
    assert text.encode()[start:end] == b"x = (1 +\n     2)"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"""Doc."""\nimport os\n\n\ndef f():\n    pass\n', '"""Doc."""\nimport os\n\nX = 1\n\n\ndef f():\n    pass\n'),
        ("import os\n\nLIMIT = 3\n", "import os\n\nX = 1\nLIMIT = 3\n"),
        ("import os\nprint(os)\n", "import os\n\nX = 1\n\nprint(os)\n"),
        ("import os\n", "import os\n\nX = 1\n"),
        ("", "X = 1\n"),
        ("# header\n\ndef f():\n    pass\n", "# header\n\nX = 1\n\n\ndef f():\n    pass\n"),
    ],
)
def test_insert_after_imports(source, expected):
    assert insert_after_imports(source, "X = 1") == expected


def test_scoped_transformer_names_each_function_it_leaves():
    class Rename(ScopedTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def leave_function(self, qualname: str, node: cst.FunctionDef) -> cst.FunctionDef:
            self.seen.append(qualname)
            if qualname != "Shape.area":
                return node
            return node.with_changes(name=cst.Name("surface"))

    rename = Rename()
    code = cst.parse_module(SOURCE).visit(rename).code
    assert rename.seen == ["Shape.area", "Shape.grow", "area.inner", "area"]
    assert rename.scope == []
    assert "def surface(self):" in code
    assert "\ndef area():" in code
