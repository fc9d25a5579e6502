"""A mined task's prompt is the commit message as its author wrote it, less only what speaks to the tools."""

from __future__ import annotations

from pathlib import Path

import pytest
from mining_repo import commit, git

from pytest_granularity.mining.history import candidate, open_repository
from pytest_granularity.mining.message import clean_message, says_nothing, with_interface


@pytest.mark.parametrize(
    "message",
    [
        "Add ellipsize() to strutils",
        "Use `foo()` where `bar(x , y)` was",
        "Shorten text\n\nThe body stays:\n\n  an indented example,  spaced as written.",
        'Default `color = "#123"` for boxes',
        "Fix the parser\n\n```\nwidth = 3  # see #12\nSigned-off-by: a line of code\n```",
    ],
)
def test_what_the_author_wrote_stays(message: str) -> None:
    assert clean_message(message) == message


@pytest.mark.parametrize(
    ("message", "prompt"),
    [
        ("Add ellipsize() to strutils\n\nSigned-off-by: A <a@example.com>", "Add ellipsize() to strutils"),
        ("Add ellipsize() (#123)", "Add ellipsize()"),
        ("Clamp values (fixes #12, #13).", "Clamp values."),
        ("Use `foo()` in bar (gh-5) [skip ci]", "Use `foo()` in bar"),
        ("Shorten text\n\nThe body.\n\nFixes #12\nCo-authored-by: B <b@example.com>", "Shorten text\n\nThe body."),
        ("Merge pull request #3 from a/b\n\nAdd ellipsize to strutils", "Add ellipsize to strutils"),
        ("bpo-1234: Shorten text", "Shorten text"),
    ],
)
def test_trailers_ci_tags_and_bare_references_go(message: str, prompt: str) -> None:
    assert clean_message(message) == prompt


def test_the_interface_section_follows_the_message_after_a_blank_line() -> None:
    section = "The tests use:\n- strutils.ellipsize(text, width=10)"
    assert with_interface("Add ellipsize", section) == "Add ellipsize\n\n" + section
    assert with_interface("Add ellipsize", "") == "Add ellipsize"


def test_a_message_of_only_references_says_nothing() -> None:
    assert says_nothing(clean_message("Fixes #12 (gh-5)"))


@pytest.mark.parametrize(
    "message",
    [
        "Merge stable into main (#3521)",
        "Merge `stable` into `main` after `CHANGES` rST to Markdown conversion (#3563)\n\nDivergence came in #3559.",
    ],
)
def test_a_branch_brought_into_another_says_nothing(message: str) -> None:
    assert says_nothing(clean_message(message))


def test_a_request_that_merges_things_still_says_something() -> None:
    assert not says_nothing(clean_message("Merge the two option parsers into one class"))


def test_a_branch_merge_speaks_through_the_merged_commits_that_change_python_and_say_something(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, "Start the markup package", {"pkg/__init__.py": "V = '2.1.1'\n", "tests/test_tags.py": "X = 1\n"})
    git(root, "checkout", "-q", "-b", "stable")
    commit(root, "update requirements", {"requirements/tests.txt": "pytest==9\n"})
    commit(root, "start version 2.1.2", {"pkg/__init__.py": "V = '2.1.2'\n"})
    commit(root, "Reword the whole changelog for clarity", {"CHANGES.rst": "2.1.2\n"})
    commit(root, "match newlines when stripping tags", {"pkg/tags.py": "S = 1\n", "tests/test_tags.py": "X = 2\n"})
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "stable", "-m", "Merge branch 'stable'")
    found = candidate(open_repository(root), git(root, "rev-parse", "HEAD").strip())
    assert found is not None and found.message == "match newlines when stripping tags\n"
