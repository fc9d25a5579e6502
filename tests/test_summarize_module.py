from __future__ import annotations

import ast

from macro_helpers import call, workspace

MODULE = '''
"""Shapes."""

from dataclasses import dataclass


def area(width: float, height: float = 1.0) -> float:
    """Area of a rectangle.

    More text.
    """
    return width * height


async def fetch(url):
    return url


class Box:
    """A box."""

    def __init__(self, size: int, *, label: str = "") -> None:
        self.size = size


@dataclass
class Point:
    x: int
    y: int = 0


def _private():
    pass
'''

EXPECTED = [
    "- def area(width: float, height: float=1.0) -> float: Area of a rectangle.",
    "- async def fetch(url): (no docstring)",
    "- class Box(size: int, *, label: str=''): A box.",
    "- class Point(x: int, y: int): (no docstring)",
]


def test_summary_into_the_module_docstring(tmp_path):
    ws = workspace(tmp_path, {"shapes.py": MODULE})
    outcome = call(ws, "summarize_module", module="shapes.py")
    assert outcome.ok, outcome.reason
    doc = ast.get_docstring(ast.parse((tmp_path / "shapes.py").read_text()))
    assert doc.startswith("Shapes.\n\nPublic API of shapes:\n")
    assert doc.splitlines()[4:] == EXPECTED
    assert "_private" not in doc


def test_summary_into_a_new_file(tmp_path):
    ws = workspace(tmp_path, {"geo/shapes.py": MODULE})
    outcome = call(ws, "summarize_module", module="geo/shapes.py", destination="docs/shapes.md")
    assert outcome.ok, outcome.reason
    assert outcome.changes.created == ("docs/shapes.md",) and not outcome.changes.modified
    assert (tmp_path / "docs/shapes.md").read_text() == "Public API of geo.shapes:\n\n" + "\n".join(EXPECTED) + "\n"


def test_module_without_docstring_gets_one(tmp_path):
    ws = workspace(tmp_path, {"m.py": "def f(a):\n    return a\n"})
    assert call(ws, "summarize_module", module="m.py").ok
    assert (
        ast.get_docstring(ast.parse((tmp_path / "m.py").read_text()))
        == "Public API of m:\n\n- def f(a): (no docstring)"
    )


def test_preconditions(tmp_path):
    ws = workspace(
        tmp_path,
        {
            "m.py": MODULE,
            "empty.py": "x = 1\n",
            "bad.py": "def (:\n",
            "docs/m.md": "exists\n",
            "raw.py": "r'''raw'''\ndef f():\n    pass\n",
        },
    )
    cases = {
        ("missing.py", None): "is not a Python module",
        ("empty.py", None): "no public top-level",
        ("bad.py", None): "does not parse",
        ("m.py", "docs/m.md"): "already exists",
        ("raw.py", None): "not a plain triple-double-quoted",
    }
    for (module, destination), words in cases.items():
        args = {"module": module, **({"destination": destination} if destination else {})}
        outcome = call(ws, "summarize_module", **args)
        assert outcome.failure_class == "precondition_mismatch" and words in outcome.reason, (module, outcome)
    assert not ws.changes()
