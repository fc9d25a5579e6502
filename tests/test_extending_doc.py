"""docs/extending.md's worked plugin, run exactly as the page prints it."""

from __future__ import annotations

import json
import re
import shutil

from conftest import DATA, REPO

DOC = REPO / "docs" / "extending.md"


def worked_plugin() -> str:
    """The code block after the page's ``<!-- worked plugin: conftest.py -->`` marker."""
    match = re.search(r"<!-- worked plugin: conftest\.py -->\n```python\n(.*?)\n```", DOC.read_text(), re.S)
    assert match, f"{DOC} has no worked plugin block"
    return match.group(1) + "\n"


def test_the_worked_plugin_runs_as_the_doc_says(pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    (pytester.path / "conftest.py").write_text(worked_plugin())
    assert "pytest tasks --granularity=keyword,micro --granularity-agent=do-nothing" in DOC.read_text()
    result = pytester.runpytest("tasks", "--granularity=keyword,micro", "--granularity-agent=do-nothing")
    result.assert_outcomes(failed=4)
    for row in ("keyword *none *1 *0.000*", "keyword *early *1 *0.000*", "micro *none *1 *0.000*"):
        result.stdout.fnmatch_lines([row])
    runs = [json.loads(line) for line in (pytester.path / "runs.jsonl").read_text().splitlines()]
    assert sorted((r["policy"], r["fault"], r["outcome"]) for r in runs) == [
        ("keyword", "early", "failed"),
        ("keyword", "late", "failed"),
        ("keyword", "none", "failed"),
        ("micro", "none", "failed"),
    ]
    assert all(r["task"] == "fix-add" and r["tokens"] > 0 for r in runs)


def test_the_worked_plugin_is_lint_and_type_clean(tmp_path):
    """What the page shows is what a reader copies: keep it to the repository's own bar."""
    import os
    import subprocess
    import sys

    plugin = tmp_path / "conftest.py"
    plugin.write_text(worked_plugin())
    ruff = shutil.which("ruff")
    if ruff:
        subprocess.run([ruff, "check", "--config", str(REPO / "pyproject.toml"), str(plugin)], check=True)
    subprocess.run(
        # The package's own errors are .ci/run's mypy step; here only the page's code is judged.
        [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--follow-imports=silent", str(plugin)],
        check=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(REPO)},
    )


def test_every_public_name_is_documented_and_has_a_docstring():
    """docs/api.md names every name in ``__all__``, and every exported class says why it is there."""
    import inspect

    import pytest_granularity

    page = (REPO / "docs" / "api.md").read_text()
    assert [n for n in pytest_granularity.__all__ if f"`{n}`" not in page] == []
    classes = [getattr(pytest_granularity, n) for n in pytest_granularity.__all__]
    generated = [c.__name__ for c in classes if inspect.isclass(c) and (c.__doc__ or "").startswith(f"{c.__name__}(")]
    assert [c.__name__ for c in classes if inspect.isclass(c) and not c.__doc__] + generated == []
