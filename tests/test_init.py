"""``granularity init`` takes a fresh repository with a test suite to a passing gated ``pytest`` in one command.

The end-to-end test runs both for real on a new git repository; the others hold what init must never do: replace
a file or a setting without ``--force``, write anything when it cannot finish its plan, or lose what a
``pyproject.toml`` already says.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from mining_repo import make_repo

from pytest_granularity.cli import main
from pytest_granularity.core.errors import InputError
from pytest_granularity.gate.init import SETTINGS
from pytest_granularity.gate.pyproject_keys import merged

SOURCE = '''"""Areas of shapes."""


def square(side):
    return side * side


def rectangle(width, height):
    return width * height
'''
TESTS = """from shapes.area import rectangle, square


def test_square():
    assert square(3) == 9


def test_rectangle():
    assert rectangle(2, 5) == 10
"""
PYPROJECT = """[project]
name = "shapes"

[tool.pytest.ini_options]
# the package is imported from the root
pythonpath = ["."]
testpaths = ["tests"]
"""


def git(repo: Path, *arguments: str) -> None:
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run(["git", *identity, *arguments], cwd=repo, check=True, capture_output=True)


def new_repository(folder: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "shapes")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file() and ".git" not in p.parts
    }


def test_init_then_pytest_is_a_passing_gated_run(tmp_path, capsys):
    repo = new_repository(
        tmp_path,
        {"shapes/__init__.py": "", "shapes/area.py": SOURCE, "tests/test_area.py": TESTS, "pyproject.toml": PYPROJECT},
    )
    assert main(["init", str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "mined HEAD: 1 commit read, 0 candidates, 0 kept (a candidate is a commit that changes code and its tests,"
        " or only moves files)\nno task was mined from the history: one example task instead\n"
    )
    for written in (
        ".github/workflows/granularity.yml",
        "pyproject.toml",
        "granularity_tasks/restore-square",
        ".granularity/baseline.json",
    ):
        assert f"wrote {written}" in out
    assert out.endswith("next: pytest\n")
    task = yaml.safe_load((repo / "granularity_tasks/restore-square/task.yaml").read_text())
    assert task["macro"]["args"] == {"files": ["shapes/area.py"], "old": "return None", "new": "return side * side"}
    settings = tomllib.loads((repo / "pyproject.toml").read_text())
    assert settings["project"] == {"name": "shapes"}
    assert settings["tool"]["pytest"]["ini_options"] == {
        "pythonpath": ["."],
        "testpaths": ["tests", "granularity_tasks"],
        "addopts": "--granularity=micro,macro,hybrid",
        "granularity_baseline": ".granularity/baseline.json",
    }
    assert "# the package is imported from the root" in (repo / "pyproject.toml").read_text()
    assert (
        "python -m pip install 'pytest-granularity[parallel] @ git+"
        in (repo / ".github/workflows/granularity.yml").read_text()
    )
    assert " -e ." in (repo / ".github/workflows/granularity.yml").read_text()  # the repository's own package
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "gate passed: nothing got worse" in run.stdout
    assert "5 passed" in run.stdout  # the repository's 2 tests and the example task under 3 policies

    before = snapshot(repo)
    assert main(["init", str(repo)]) == 2
    assert "exist; --force replaces" in capsys.readouterr().err
    assert snapshot(repo) == before
    (fixture,) = (repo / "granularity_tasks" / "fixtures").iterdir()  # named after the repository's folder
    (fixture / "stale.py").write_text("")
    assert main(["init", "--force", str(repo)]) == 0, capsys.readouterr().err
    after = snapshot(repo)
    assert after.keys() == before.keys()  # the stale file is gone with the fixture it was in, nothing is added
    assert {p: after[p] for p in after if "baseline" not in p} == {p: before[p] for p in before if "baseline" not in p}


def test_init_mines_the_history_then_pytest_is_a_passing_gated_run(tmp_path, capsys):
    repo = tmp_path / "calc"
    commits = make_repo(repo)
    assert main(["init", str(repo)]) == 0
    out = capsys.readouterr().out
    assert (
        "\nmined HEAD: 4 commits read, 3 candidates, 1 kept; rejected: message says nothing 1, tests pass before 1\n"
        in out
    )
    assert "example task" not in out
    (path,) = (repo / "granularity_tasks").glob("*/task.yaml")
    task = yaml.safe_load(path.read_text())
    assert task["fixture"] == "../.." and task["fixture_ref"] == commits["initial"]  # relative to where it stays
    assert task["provenance"]["commit"] == commits["fix"]
    assert f"wrote granularity_tasks/{task['id']}: mined from commit {commits['fix'][:7]} (simple)" in out
    assert "wrote .granularity/baseline.json: the first baseline (1 failed, 2 passed" in out  # macro: none fits
    assert sorted(p.name for p in (repo / "granularity_tasks").iterdir()) == [task["id"]]  # no ledger
    assert not list(repo.glob(".granularity-init-*"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], cwd=repo, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "gate passed: nothing got worse" in run.stdout
    assert "5 passed, 1 xfailed" in run.stdout  # the repository's 3 tests; micro and hybrid pass, macro as recorded


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--limit", "0"], "--limit 0: must be at least 1"), (["--revisions", "nosuch"], "revisions 'nosuch'")],
    ids=["limit", "revisions"],
)
def test_mining_options_that_cannot_be_mined_are_refused_and_nothing_is_written(tmp_path, capsys, args, message):
    make_repo(tmp_path / "calc")
    before = snapshot(tmp_path / "calc")
    assert main(["init", str(tmp_path / "calc"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("granularity init: ") and message in err
    assert snapshot(tmp_path / "calc") == before


def test_a_repository_without_a_usable_function_and_test_gets_nothing_written(tmp_path, capsys):
    repo = new_repository(
        tmp_path, {"shapes/area.py": SOURCE, "tests/test_other.py": "def test_nothing():\n    assert 1\n"}
    )
    before = snapshot(repo)
    assert main(["init", str(repo)]) == 2
    assert "no example task could be built" in capsys.readouterr().err
    assert snapshot(repo) == before


def test_a_config_pytest_reads_first_is_refused(tmp_path, capsys):
    repo = new_repository(tmp_path, {"pytest.ini": "[pytest]\n", "shapes/area.py": SOURCE})
    assert main(["init", str(repo)]) == 2
    assert "pytest.ini: pytest reads its settings from it" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", {"granularity_baseline": ".granularity/baseline.json", "addopts": "--granularity=micro,macro,hybrid"}),
        (
            '[project]\nname = "x"\n',
            {"granularity_baseline": ".granularity/baseline.json", "addopts": "--granularity=micro,macro,hybrid"},
        ),
        (
            "[tool.pytest.ini_options]\naddopts = [\"-ra\"]  # kept\ntestpaths = ['t']\n\n[tool.other]\nx = 1\n",
            {
                "granularity_baseline": ".granularity/baseline.json",
                "addopts": ["-ra", "--granularity=micro,macro,hybrid"],
                "testpaths": ["t", "granularity_tasks"],
            },
        ),
        (
            '[tool.pytest.ini_options]\naddopts = "-ra --granularity=all"\ngranularity_baseline = ".granularity/baseline.json"\n',
            {"granularity_baseline": ".granularity/baseline.json", "addopts": "-ra --granularity=all"},
        ),
    ],
    ids=["no-file", "no-table", "lists-and-other-tables", "already-set-up"],
)
def test_the_settings_merge_keeps_what_is_there(before, after):
    text = merged(before, SETTINGS, force=False)
    document = tomllib.loads(text)
    assert document["tool"]["pytest"]["ini_options"] == after
    assert {k: v for k, v in document.items() if k != "tool"} == {
        k: v for k, v in tomllib.loads(before).items() if k != "tool"
    }
    assert document["tool"].get("other") == tomllib.loads(before).get("tool", {}).get("other")
    assert "# kept" in text or "# kept" not in before


def test_a_setting_is_replaced_only_with_force_and_a_layout_it_cannot_edit_is_refused():
    other = '[tool.pytest.ini_options]\ngranularity_baseline = "mine.json"\n'
    with pytest.raises(InputError, match=r"granularity_baseline is already 'mine\.json'; --force replaces"):
        merged(other, SETTINGS, force=False)
    replaced = tomllib.loads(merged(other, SETTINGS, force=True))["tool"]["pytest"]["ini_options"]
    assert replaced["granularity_baseline"] == ".granularity/baseline.json"
    spread = '[tool.pytest.ini_options]\ntestpaths = [\n  "tests",\n]\n'
    with pytest.raises(InputError, match=r"testpaths is not on a line of its own"):
        merged(spread, SETTINGS, force=False)
