"""The documentation site builds with no warning, and the README stays a landing page.

The build is Sphinx with ``docs/conf.py`` and ``-W``: a link to a page, heading or file that does
not exist, a page no table of contents lists and a table of contents naming a missing page are
each a warning, so each fails here (and so in CI, which installs the ``docs`` extra).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

pytest.importorskip("myst_parser", reason="the site needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("furo", reason="the site needs the docs extra: pip install -e '.[docs]'")

README_LINES = 150
"""A landing page: what it is, the two commands, what you see, the gate, models, results, links."""


def build(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx-build`` as docs/developing.md gives it: every warning is an error, all of them reported."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_with_no_warning(tmp_path: Path) -> None:
    result = build(REPO / "docs", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr + result.stdout
    pages = {p.stem for p in (REPO / "docs").glob("*.md")}
    assert pages <= {p.stem for p in (tmp_path / "site").glob("*.html")}
    home = (tmp_path / "site" / "index.html").read_text()
    assert 'href="getting-started.html"' in home, "the README's links to docs/ pages point at the site's pages"


def test_a_broken_link_a_missing_page_and_an_orphan_fail_the_build(tmp_path: Path) -> None:
    """The real configuration, on a small site with one of each defect."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(REPO / "docs" / "conf.py", docs)
    (tmp_path / "README.md").write_text(
        "# Home\n\n[guide](docs/guide.md#setup), [gone](docs/gone.md), [no heading](docs/guide.md#nowhere)\n"
    )
    (docs / "index.md").write_text(
        "```{include} ../README.md\n:relative-docs: docs/\n```\n\n```{toctree}\nguide\nmissing-page\n```\n"
    )
    (docs / "guide.md").write_text("# Guide\n\n## Setup\n\nSee [the code](../no_such_file.py).\n")
    (docs / "orphan.md").write_text("# Nobody links here\n")
    result = build(docs, tmp_path / "site")
    assert result.returncode != 0
    for warning in (
        "cross-reference target not found: 'gone.md'",
        "'nowhere'",
        "cross-reference target not found: '../no_such_file.py'",
        "toctree contains reference to nonexisting document 'missing-page'",
        "orphan.md: WARNING: document isn't included in any toctree",
    ):
        assert warning in result.stderr, result.stderr
    assert "'setup'" not in result.stderr, "a link to an existing heading is fine"


def test_the_readme_is_a_landing_page() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= README_LINES, (
        f"README.md has {len(lines)} lines: move detail into docs/ (at most {README_LINES})"
    )
