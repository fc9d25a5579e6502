"""Which installed pytest plugins a project's tests need, loaded by name since runs never autoload plugins.

Runs keep plugin autoload off (an installed xdist, randomly or cov must not change what a run sees), so a
project's tests that use ``mocker`` or an async marker would error. A plugin is loaded for a task when it is
installed here and the project declares it as a test dependency (an optional-dependency or dependency group
named like ``test``/``tests``/``testing``/``dev``, a ``requirements*test*.txt`` or ``*dev*`` file, tox's
``deps``, setup.cfg's ``extras_require``), names it with ``-p`` or ``required_plugins``, or its tests use one of
its fixtures or markers. Plugins that only report, reorder, rerun or parallelise are never loaded.
"""

from __future__ import annotations

import ast
import configparser
import functools
import importlib
import importlib.metadata
import inspect
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ..core.pytest_spec import Plugin

TEST_GROUPS = frozenset({"test", "tests", "testing", "dev", "develop", "development", "all"})
NEVER = frozenset(
    {
        "pytest-granularity",
        "pytest-xdist",
        "pytest-cov",
        "pytest-html",
        "pytest-metadata",
        "pytest-md-report",
        "pytest-randomly",
        "pytest-random-order",
        "pytest-rerunfailures",
        "pytest-sugar",
        "pytest-instafail",
    }
)
"""Plugins that report, reorder, rerun or parallelise: what a verifier must not inherit."""
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
MARKER_LINE = re.compile(r"""addinivalue_line\(\s*["']markers["']\s*,\s*f?["']([A-Za-z_]\w*)""")
USED_MARKER = re.compile(r"\bmark\.([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Installed:
    plugin: Plugin
    fixtures: frozenset[str]
    markers: frozenset[str]


def needed_plugins(files: Mapping[str, bytes], test_files: Iterable[str], named: Iterable[str]) -> list[Plugin]:
    """The installed plugins the project at this tree needs; ``named`` are modules or distributions its config
    names (``-p``, ``required_plugins``)."""
    declared = declared_requirements(files) | {_normal(n) for n in named}
    fixtures, markers = _used(files, test_files)
    chosen = []
    for each in installed_plugins():
        plugin = each.plugin
        wanted = _normal(plugin.distribution) in declared or plugin.module in set(named)
        if wanted or each.fixtures & fixtures or each.markers & markers:
            chosen.append(plugin)
    return chosen


@functools.cache
def installed_plugins() -> tuple[Installed, ...]:
    """Every plugin installed in this Python (its ``pytest11`` entry points), less those never loaded."""
    found: dict[str, Installed] = {}
    for entry in importlib.metadata.entry_points(group="pytest11"):
        distribution = entry.dist.name if entry.dist is not None else entry.module.split(".")[0]
        if _normal(distribution) in NEVER or entry.module in found:
            continue
        fixtures, markers = _offers(entry.module)
        found[entry.module] = Installed(Plugin(entry.module, distribution), fixtures, markers)
    return tuple(found[module] for module in sorted(found))


def declared_requirements(files: Mapping[str, bytes]) -> set[str]:
    """The normalised names of the distributions the project declares for its tests."""
    names: set[str] = set()
    pyproject = _toml(files.get("pyproject.toml"))
    groups = {**pyproject.get("project", {}).get("optional-dependencies", {}), **pyproject.get("dependency-groups", {})}
    for group, items in groups.items():
        if _normal(group) in TEST_GROUPS and isinstance(items, list):
            names |= {_requirement(i) for i in items if isinstance(i, str)}
    for path, data in files.items():
        name = PurePosixPath(path).name.lower()
        if name.endswith((".txt", ".in")) and "requirements" in path.lower() and ("test" in name or "dev" in name):
            names |= {_requirement(line) for line in data.decode("utf-8", "replace").splitlines()}
    names |= _ini_requirements(files.get("tox.ini"), "testenv", "deps")
    names |= _ini_requirements(files.get("setup.cfg"), "options.extras_require", None)
    return names - {""}


def _ini_requirements(data: bytes | None, section: str, key: str | None) -> set[str]:
    if data is None:
        return set()
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return set()
    if not parser.has_section(section):
        return set()
    values = (
        [parser.get(section, key, fallback="")]
        if key
        else [v for k, v in parser.items(section) if _normal(k) in TEST_GROUPS]
    )
    return {_requirement(line) for value in values for line in value.splitlines()}


def _requirement(line: str) -> str:
    line = line.strip()
    if line.startswith(("-", "#")) or "{" in line.split(" ", 1)[0]:
        return ""
    match = REQUIREMENT.match(line)
    return _normal(match.group(1)) if match else ""


def _used(files: Mapping[str, bytes], test_files: Iterable[str]) -> tuple[set[str], set[str]]:
    """Every parameter name of a function in the test files and conftests (fixtures asked for), and every marker."""
    params: set[str] = set()
    markers: set[str] = set()
    for path in test_files:
        text = files.get(path, b"").decode("utf-8", "replace")
        markers |= set(USED_MARKER.findall(text))
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                params |= {a.arg for a in node.args.args + node.args.kwonlyargs}
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "usefixtures":
                params |= {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return params, markers


def _offers(module_name: str) -> tuple[frozenset[str], frozenset[str]]:
    """The fixtures a plugin module defines and the markers it registers; nothing when it cannot be imported."""
    try:
        module = importlib.import_module(module_name)
        source = inspect.getsource(module)
    except Exception:  # a broken plugin is not ours to fix: it is simply not offered
        return frozenset(), frozenset()
    fixtures = {name for name, value in vars(module).items() if _is_fixture(value)}
    return frozenset(fixtures), frozenset(MARKER_LINE.findall(source))


def _is_fixture(value: object) -> bool:
    from ..compat import fixture_marker

    return fixture_marker(value) is not None


def _toml(data: bytes | None) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8", "replace")) if data else {}
    except tomllib.TOMLDecodeError:
        return {}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
