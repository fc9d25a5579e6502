"""Every model load in the repository goes through ``llama_server.guarded_llama``.

A ``Llama`` constructed any other way keeps llama.cpp's extra buffer types, and on a CPU with AMX a native
build then dies by SIGSEGV on its first decode (docs/models.md). No CPU here has AMX, so no test could see
that crash: this scan is the guard. It finds every reference to llama-cpp-python's ``Llama`` class (an import
of it, under any alias, or an attribute ``.Llama``) in the package, the tests, the scripts and everything else
tracked in Python, and allows them only inside the guarded loader.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from conftest import REPO

LOADER = ("pytest_granularity/agents/llama_server.py", "guarded_llama")
SKIPPED = {"__pycache__", "node_modules", "build"}
"""Folders that hold no source of ours (besides hidden ones such as .venv and .git)."""


def python_files(root: Path) -> list[Path]:
    files = []
    for folder, folders, names in os.walk(root):
        folders[:] = [f for f in folders if not f.startswith(".") and f not in SKIPPED and not f.endswith(".egg-info")]
        files += [Path(folder, name) for name in names if name.endswith(".py")]
    return sorted(files)


class _References(ast.NodeVisitor):
    """Where ``Llama`` is named, each with the function around it (``""`` at a module's top level)."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.found: list[tuple[int, str]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_FunctionDef(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").split(".")[0] == "llama_cpp" and any(a.name in ("Llama", "*") for a in node.names):
            self._found(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "Llama":
            self._found(node)
        self.generic_visit(node)

    def _found(self, node: ast.expr | ast.stmt) -> None:
        self.found.append((node.lineno, self.functions[-1] if self.functions else ""))


def llama_references(source: str) -> list[tuple[int, str]]:
    if "Llama" not in source:
        return []  # most files: parsing them all would take seconds
    visitor = _References()
    visitor.visit(ast.parse(source))
    return visitor.found


def test_the_scan_finds_every_way_of_naming_the_class():
    source = (
        "import llama_cpp\n"
        "from llama_cpp import Llama as L\n"
        "from llama_cpp.llama import *\n"
        "def load():\n"
        "    return llama_cpp.Llama(model_path='m'), llama_cpp.llama.Llama.from_pretrained('r', 'f')\n"
        "from llama_cpp import LlamaGrammar, llama_cpp as low_level\n"
    )
    assert llama_references(source) == [(2, ""), (3, ""), (5, "load"), (5, "load")]


def test_no_code_loads_a_model_but_the_guarded_loader():
    path, function = LOADER
    files = python_files(REPO)
    assert REPO / path in files and REPO / "tests" / "test_local_model.py" in files
    elsewhere = [
        f"{file.relative_to(REPO)}:{line} (in {where or 'the module'})"
        for file in files
        for line, where in llama_references(file.read_text(encoding="utf-8"))
        if (str(file.relative_to(REPO)), where) != LOADER
    ]
    assert elsewhere == [], f"construct the model with {function}() ({path}), which turns off the extra buffer types"
    assert llama_references((REPO / path).read_text(encoding="utf-8")), "the scan sees the loader's own import"
