"""A small repository with a history to mine: one commit of each kind the miner must tell apart."""

from __future__ import annotations

import subprocess
from pathlib import Path

OPS = """def add(a, b):
    return a + b


def clamp(value, low, high):
    return max(low, value)
"""
OPS_FIXED = OPS.replace("return max(low, value)", "return max(low, min(value, high))")
CONFTEST = """import pytest


@pytest.fixture
def bounds():
    return (0, 10)
"""
TEST_OPS = """from calc.ops import add


def test_add():
    assert add(2, 3) == 5
"""
TEST_CLAMP = """import pathlib

from calc.ops import add, clamp

DATA = pathlib.Path(__file__).parent / "data" / "limits.txt"


def test_add():
    assert add(2, 3) == 5


def test_clamp_high(bounds):
    low, high = bounds
    assert clamp(int(DATA.read_text()), low, high) == high
"""


def git(root: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
        "PATH": "/usr/bin:/bin",
        "HOME": str(root),
    }
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def commit(root: Path, message: str, files: dict[str, str], removed: tuple[str, ...] = ()) -> str:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel in removed:
        git(root, "rm", "-q", rel)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def make_repo(root: Path) -> dict[str, str]:
    """The repository and its commits by kind: ``fix`` is the one to keep."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    shas = {}
    shas["initial"] = commit(
        root,
        "Start the calc package",
        {
            "calc/__init__.py": "",
            "calc/ops.py": OPS,
            "tests/conftest.py": CONFTEST,
            "tests/test_ops.py": TEST_OPS,
            "tests/data/limits.txt": "42\n",
        },
    )
    shas["fix"] = commit(
        root,
        "Clamp values above the upper bound (#12)\n\nclamp ignored its upper bound.\n\nSigned-off-by: A <a@example.com>",
        {"calc/ops.py": OPS_FIXED, "tests/test_ops.py": TEST_CLAMP},
    )
    shas["vacuous"] = commit(root, "wip", {"calc/ops.py": OPS_FIXED + "\n", "tests/test_ops.py": TEST_CLAMP + "\n"})
    shas["passes_before"] = commit(
        root,
        "Document add and test it with negative numbers",
        {
            "calc/ops.py": OPS_FIXED.replace("def add(a, b):", 'def add(a, b):\n    """The sum."""') + "\n",
            "tests/test_ops.py": TEST_CLAMP + "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n",
        },
    )
    return shas
