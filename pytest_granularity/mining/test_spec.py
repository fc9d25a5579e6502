"""A commit's ``pytest:`` spec (``core.pytest_spec``): derived once from its tree and this environment.

The project's pytest options are read as pytest reads them (ini files, ``setup.cfg``, ``tox.ini``,
``pyproject.toml``'s ``[tool.pytest.ini_options]`` or pytest 9's native ``[tool.pytest]``), less what only a
developer's own runs want: ``pythonpath`` (the import roots take its place), cache and log files, and from
``addopts`` the coverage and report writers, xdist and the options of the cache plugin, which runs disable.
Each option left out is listed in the task. :func:`usable` then runs pytest once with the spec on an empty
folder: an ``addopts`` option of a plugin that is not loaded is dropped too, and any other failure (a
``minversion`` above this pytest, a plugin that does not load) is the project's config failing here, said once
for every candidate that shares the spec.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from ..core.pytest_spec import PytestSpec
from ..core.test_layout import TestLayout, pytest_section, read_layout, test_tree
from .import_roots import import_roots
from .plugins import needed_plugins

NOT_INHERITED = frozenset(
    {
        "addopts",
        "pythonpath",
        "required_plugins",
        "cache_dir",
        "console_output_style",
        "junit_family",
        "junit_suite_name",
        "junit_logging",
        "junit_log_passing_tests",
        "junit_duration_report",
        "log_file",
        "log_file_level",
        "log_file_format",
        "log_file_date_format",
        "log_file_mode",
    }
)
"""Ini options a task's runs never take from the project: paths on this machine, caches, report files."""
WITH_VALUE = frozenset(
    {
        "--cov-report",
        "--cov-config",
        "--cov-fail-under",
        "--cov-context",
        "--junitxml",
        "--junit-xml",
        "--html",
        "--css",
        "-n",
        "--numprocesses",
        "--maxprocesses",
        "--dist",
        "--basetemp",
        "--rootdir",
        "-c",
        "--confcutdir",
        "-p",
        "--md-report-output",
    }
)
"""Options dropped with the word after them when it is not joined with ``=``."""
DROPPED = re.compile(
    r"^(--cov|--no-cov|--junit|--html|--self-contained-html|--css|--md-report|-n|--numprocesses|--maxprocesses|--dist"
    r"|--tx|--looponfail|-f$|--lf|--last-failed|--ff|--failed-first|--nf|--new-first|--sw|--stepwise|--cache-"
    r"|--basetemp|--rootdir|-c$|--confcutdir|--strict-config|--pdb|--trace)"
)
"""What a verifier must not inherit: coverage and report writers, xdist, the cache plugin's options (runs
disable it), paths of this machine, ``--strict-config`` (the config is ours) and debuggers."""
USAGE = re.compile(r"unrecognized arguments: (.*)")
CHECK_TIMEOUT = 60.0


def derive(files: Mapping[str, bytes], layout: TestLayout, parent: Mapping[str, bytes]) -> PytestSpec:
    """The spec of the tree ``files`` (a commit's), with this environment's plugins; the project's names are
    imported from the commit's folders, then the parent's where the commit moves them."""
    section = dict(pytest_section(files) or {})
    addopts, dropped, named = _filtered(_words(section.get("addopts")))
    named += [w for w in _words(section.get("required_plugins"))]
    tests = test_tree(files, layout)
    plugins = needed_plugins(files, [*tests, *(p for p in files if p.endswith("conftest.py"))], named)
    options = {k: _value(v) for k, v in section.items() if k not in NOT_INHERITED}
    after, before = import_roots(files, layout), import_roots(parent, read_layout(parent))
    roots = {n: tuple(dict.fromkeys(f for f in (after.get(n), before.get(n)) if f)) for n in sorted({*after, *before})}
    return PytestSpec(roots, options, tuple(addopts), tuple(plugins), tuple(dropped))


def usable(spec: PytestSpec) -> tuple[PytestSpec, str | None]:
    """The spec less the ``addopts`` options pytest does not know here, and why pytest cannot start with it
    (None when it can): one run of pytest collecting an empty folder, per distinct spec (a history's commits
    mostly share one), so what fails for every candidate alike is found once."""
    key = spec.config()
    if key not in _CHECKED:
        _CHECKED[key] = _usable(spec)
    found, problem = _CHECKED[key]
    return replace(found, dropped=spec.dropped + found.dropped[len(spec.dropped) :]), problem


_CHECKED: dict[str, tuple[PytestSpec, str | None]] = {}


def _usable(spec: PytestSpec) -> tuple[PytestSpec, str | None]:
    for _ in range(3):
        problem = _collect_nothing(spec)
        unknown = USAGE.search(problem or "")
        if not unknown:
            return spec, problem
        words = set(shlex.split(unknown.group(1)))
        if not words & set(spec.addopts):
            return spec, problem
        kept = tuple(w for w in spec.addopts if w not in words)
        spec = replace(spec, addopts=kept, dropped=spec.dropped + tuple(w for w in spec.addopts if w in words))
    return spec, _collect_nothing(spec)


def _collect_nothing(spec: PytestSpec) -> str | None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # as every run of a task: plugins load by name alone
    with tempfile.TemporaryDirectory(prefix="granularity-spec-") as folder:
        config = Path(folder) / "granularity-pytest.ini"
        config.write_text(spec.config(), encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-c", str(config), f"--rootdir={folder}", "-q", "--co"]
        command += ["-p", "no:cacheprovider", folder]
        try:
            done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"pytest did not start within {CHECK_TIMEOUT:g}s with the project's config"
    if done.returncode in (0, 5):  # 5: no tests collected, as expected of an empty folder
        return None
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return " ".join(lines[:4])[:300] or f"pytest exited {done.returncode}"


def _filtered(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``addopts`` split into what runs keep, what they drop, and the plugins ``-p`` names (loaded by name)."""
    kept: list[str] = []
    dropped: list[str] = []
    named: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        takes = word in WITH_VALUE or (word == "--cov" and i + 1 < len(words) and not words[i + 1].startswith("-"))
        pair = [word, words[i + 1]] if takes and i + 1 < len(words) else [word]
        i += len(pair)
        if pair[0] == "-p" and len(pair) == 2 and not pair[1].startswith("no:"):
            named.append(pair[1])
        elif DROPPED.match(word) or pair[0] == "-p":
            dropped += pair
        else:
            kept += pair
    return kept, dropped, named


def _words(value: object) -> list[str]:
    """An ``args`` option as pytest reads it: a TOML list word for word, text split as a shell would."""
    if value is None:
        return []
    return [str(item) for item in value] if isinstance(value, list) else shlex.split(str(value))


def _value(value: object) -> str | tuple[str, ...]:
    """An option as the ini file we write gives it: a list, or text of several lines, line by line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    lines = [line.strip() for line in str(value).splitlines() if line.strip()]
    return tuple(lines) if len(lines) > 1 else (lines[0] if lines else "")
