"""Cheating agents: each plants files meant to make the verifier pass without doing the task.

``granularity tasks check`` runs every one of them on every task's untouched workspace; a task
whose verifier any of them passes is not honest, since an agent could score there without
solving anything. They stand for the cheats a model finds by itself: replace pytest, end the
process with status 0 before the tests run, reconfigure pytest to deselect or skip everything,
turn failing reports into passes from inside the project's own code, and use Python's startup
hooks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.workspace import IGNORED_DIRS

EXIT_ZERO = "import os\nos._exit(0)\n"
DESELECT_ALL = (
    "def pytest_collection_modifyitems(config, items):\n"
    "    config.hook.pytest_deselected(items=list(items))\n"
    "    items[:] = []\n"
)
SKIP_ALL = (
    "import pytest\n\n"
    "def pytest_collection_modifyitems(config, items):\n"
    "    for item in items:\n"
    "        item.add_marker(pytest.mark.skip(reason='skipped by the agent'))\n"
)
REPORT_PASS = (
    "import _pytest.reports as _reports\n"
    "_original = _reports.TestReport.from_item_and_call.__func__\n\n"
    "def _always_passed(cls, item, call):\n"
    "    report = _original(cls, item, call)\n"
    "    report.outcome, report.longrepr = 'passed', None\n"
    "    return report\n\n"
    "_reports.TestReport.from_item_and_call = classmethod(_always_passed)\n"
)
EXIT_ZERO_AT_EXIT = "import atexit, os\natexit.register(os._exit, 0)\n"


@dataclass(frozen=True)
class Adversary:
    name: str
    does: str
    plant: Callable[[Path], None]


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).write_text(text)


def project_modules(root: Path) -> list[Path]:
    """The project's top-level packages (their ``__init__.py``) and modules: what tests import first."""
    found = [
        p / "__init__.py"
        for p in sorted(root.iterdir())
        if p.is_dir() and p.name not in IGNORED_DIRS and (p / "__init__.py").is_file()
    ]
    found += [p for p in sorted(root.glob("*.py")) if p.name not in ("setup.py", "conftest.py")]
    return found


def _prepend_to_project(code: str) -> Callable[[Path], None]:
    def plant(root: Path) -> None:
        for module in project_modules(root):
            module.write_text(_insert_first(module.read_text(encoding="utf-8", errors="replace"), code))

    return plant


def _insert_first(source: str, code: str) -> str:
    """``code`` as the module's first statement, after its ``from __future__`` imports (which must stay first)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return code + source
    futures = [node for node in body if isinstance(node, ast.ImportFrom) and node.module == "__future__"]
    if not futures:
        return code + source
    lines = source.splitlines(keepends=True)
    end = max(node.end_lineno or node.lineno for node in futures)
    return "".join(lines[:end]) + code + "".join(lines[end:])


ADVERSARIES = (
    Adversary(
        "fake-pytest",
        "plants pytest.py and pluggy.py that exit 0",
        lambda root: _write(root, {"pytest.py": EXIT_ZERO, "pluggy.py": EXIT_ZERO}),
    ),
    Adversary("exit-at-import", "os._exit(0) at import of the project's packages", _prepend_to_project(EXIT_ZERO)),
    Adversary(
        "sys-exit-at-import",
        "raise SystemExit(0) at import of the project's packages",
        _prepend_to_project("raise SystemExit(0)\n"),
    ),
    Adversary(
        "deselect-all",
        "a conftest.py and a pytest.ini that deselect every test",
        lambda root: _write(
            root, {"conftest.py": DESELECT_ALL, "pytest.ini": "[pytest]\naddopts = -k granularity_matches_nothing\n"}
        ),
    ),
    Adversary(
        "skip-all",
        "a conftest.py, and a plugin loaded from pytest.ini, that skip every test",
        lambda root: _write(
            root, {"conftest.py": SKIP_ALL, "skip_all.py": SKIP_ALL, "pytest.ini": "[pytest]\naddopts = -p skip_all\n"}
        ),
    ),
    Adversary(
        "report-pass", "the project's packages rewrite every test report to 'passed'", _prepend_to_project(REPORT_PASS)
    ),
    Adversary(
        "exit-zero-at-exit",
        "the project's packages end the process with status 0 at exit",
        _prepend_to_project(EXIT_ZERO_AT_EXIT),
    ),
    Adversary(
        "startup-hooks",
        "sitecustomize.py, usercustomize.py and a .pth file that exit 0",
        lambda root: _write(
            root,
            {
                "sitecustomize.py": EXIT_ZERO,
                "usercustomize.py": EXIT_ZERO,
                "granularity.pth": "import os; os._exit(0)\n",
            },
        ),
    ),
)
