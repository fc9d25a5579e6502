"""Where a project's own top-level modules live in its tree: what a task's ``pytest.import_roots`` names.

Read from the tree alone, as a build backend would find the packages: root packages and modules, ``src/``,
the folders the pytest config puts on ``pythonpath``, and what the packaging config names (setuptools
``package-dir`` and ``packages.find.where`` in ``pyproject.toml`` or ``setup.cfg``, flit's module, hatch's
wheel ``packages``, poetry's ``packages``). Test folders are never import roots: the hidden tests bring
their own.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from ..core.test_layout import TestLayout

NOT_PROJECT = frozenset({"setup", "conftest", "noxfile", "fabfile", "tasks", "docs", "doc", "examples", "benchmarks"})


def import_roots(files: Mapping[str, bytes], layout: TestLayout) -> dict[str, str]:
    """Top-level name -> the folder (relative to the root, ``.`` for the root) it is imported from."""
    folders = ["src", *layout.pythonpath, *_packaging_folders(files)]
    found: dict[str, str] = {}
    for folder in [".", *dict.fromkeys(f.strip("/") for f in folders if f.strip("/") not in ("", "."))]:
        for name in _top_level(files, folder, layout):
            found.setdefault(name, folder)
    return dict(sorted(found.items()))


def _top_level(paths: Iterable[str], folder: str, layout: TestLayout) -> set[str]:
    depth = 0 if folder == "." else len(PurePosixPath(folder).parts)
    names = set()
    for path in paths:
        pure = PurePosixPath(path)
        if depth and pure.parts[:depth] != PurePosixPath(folder).parts:
            continue
        parts = pure.parts[depth:]
        if layout.is_test_support(path) or (parts and parts[0].lower().startswith("test")):
            continue
        if len(parts) == 1 and pure.suffix == ".py":
            names.add(pure.stem)
        elif len(parts) == 2 and parts[1] == "__init__.py":
            names.add(parts[0])
    return {n for n in names if n.isidentifier() and n not in NOT_PROJECT}


def _packaging_folders(files: Mapping[str, bytes]) -> list[str]:
    """The folders a packaging config says the packages are in."""
    folders: list[str] = []
    pyproject = _toml(files.get("pyproject.toml"))
    tool = pyproject.get("tool", {})
    setuptools = tool.get("setuptools", {})
    folders += [v for k, v in _mapping(setuptools.get("package-dir")).items() if k == "" and isinstance(v, str)]
    find = setuptools.get("packages", {})
    if isinstance(find, dict):
        folders += [w for w in find.get("find", {}).get("where", []) if isinstance(w, str)]
    wheel = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    folders += [str(PurePosixPath(p).parent) for p in wheel.get("packages", []) if isinstance(p, str)]
    for package in tool.get("poetry", {}).get("packages", []):
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            folders.append(package["from"])
    folders += _setup_cfg_folders(files.get("setup.cfg"))
    return folders


def _setup_cfg_folders(data: bytes | None) -> list[str]:
    if data is None:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return []
    folders = []
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        key, _, value = line.partition("=")
        if not key.strip() and value.strip():
            folders.append(value.strip())
    where = parser.get("options.packages.find", "where", fallback="").split()
    return folders + where


def _toml(data: bytes | None) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return {}


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
