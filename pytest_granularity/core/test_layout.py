"""Which files of a commit are tests, as pytest would find them there.

The repository's own settings at that commit decide (``testpaths`` and ``python_files`` from
``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``, ``tox.ini`` or ``setup.cfg``, the first that has
a pytest section, as pytest reads them); without them, pytest's defaults. A test's *tree* is what the
hidden verifier needs besides the test files: the ``conftest.py`` files above them and everything in
their test folder (helpers, data files), so that the project's tests run as the project wrote them.
"""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
NORECURSE = (".*", "*.egg", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


@dataclass(frozen=True)
class TestLayout:
    """The settings that say where tests are; ``pythonpath`` is what the project puts on ``sys.path``."""

    __test__ = False  # not a pytest test class, whatever its name

    testpaths: tuple[str, ...] = ()
    python_files: tuple[str, ...] = DEFAULT_PYTHON_FILES
    pythonpath: tuple[str, ...] = ()

    def is_test_file(self, path: str) -> bool:
        pure = PurePosixPath(path)
        if pure.suffix != ".py" or _skipped(pure):
            return False
        if self.testpaths and not any(_under(pure, root) for root in self.testpaths):
            return False
        return any(fnmatch.fnmatch(pure.name, pattern) for pattern in self.python_files)

    def is_test_support(self, path: str) -> bool:
        """A test file, a ``conftest.py``, or any file in a test folder: never part of a reference solution."""
        pure = PurePosixPath(path)
        return self.is_test_file(path) or pure.name == "conftest.py" or test_folder(pure) is not None


def test_folder(path: PurePosixPath) -> str | None:
    """The outermost folder above ``path`` named like a test folder (``tests``, ``test``, ``testing``)."""
    for n, part in enumerate(path.parts[:-1]):
        if part.lower().startswith("test"):
            return "/".join(path.parts[: n + 1])
    return None


def read_layout(files: Mapping[str, bytes]) -> TestLayout:
    """The layout from the first config file at the root that has a pytest section (pytest's order)."""
    section = pytest_section(files)
    if section is None:
        return TestLayout()
    return TestLayout(
        testpaths=tuple(p.strip("/") for p in _words(section.get("testpaths")) if p not in (".", "")),
        python_files=tuple(_words(section.get("python_files"))) or DEFAULT_PYTHON_FILES,
        pythonpath=tuple(p.strip("/") for p in _words(section.get("pythonpath")) if p not in (".", "")),
    )


def pytest_section(files: Mapping[str, bytes]) -> Mapping[str, object] | None:
    """The pytest options of the first config file at the root that has a pytest section, in pytest's order."""
    for name in CONFIG_FILES:
        data = files.get(name)
        section = _section(name, data.decode("utf-8", "replace")) if data is not None else None
        if section is not None:
            return section
    return None


def test_tree(files: Iterable[str], layout: TestLayout) -> list[str]:
    """Every file the project's tests may need beside their code: test files, their folders' contents and
    the ``conftest.py`` files above them."""
    files = list(files)
    tests = [f for f in files if layout.is_test_file(f)]
    folders = {test_folder(PurePosixPath(f)) for f in tests} - {None}
    conftest_dirs = {str(PurePosixPath(f).parent) for f in tests}
    conftest_dirs |= {str(parent) for f in tests for parent in PurePosixPath(f).parents}
    return sorted(
        f
        for f in files
        if f in tests
        or any(_under(PurePosixPath(f), folder) for folder in folders if folder)
        or (PurePosixPath(f).name == "conftest.py" and str(PurePosixPath(f).parent) in conftest_dirs)
    )


def _section(name: str, text: str) -> Mapping[str, object] | None:
    if name == "pyproject.toml":
        try:
            tool = tomllib.loads(text).get("tool", {}).get("pytest", {})
        except tomllib.TOMLDecodeError:
            return None
        # pytest 9 reads options from [tool.pytest] itself, native TOML; earlier ones from its ini_options table
        native = {k: v for k, v in tool.items() if k != "ini_options"} if isinstance(tool, dict) else {}
        table = tool.get("ini_options") if isinstance(tool, dict) else None
        if native:
            return native
        return table if isinstance(table, dict) else None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    wanted = "tool:pytest" if name == "setup.cfg" else "pytest"
    return dict(parser[wanted]) if parser.has_section(wanted) else None


def _words(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value).split()


def _under(path: PurePosixPath, folder: str) -> bool:
    return str(path) == folder or str(path).startswith(folder.rstrip("/") + "/")


def _skipped(path: PurePosixPath) -> bool:
    return any(fnmatch.fnmatch(part, pattern) for part in path.parts[:-1] for pattern in NORECURSE)
