"""Mining a repository shaped as teams have them, from the developer's own environment: a src layout whose
package imports a git-ignored version file the build wrote, installed editable (its checkout on the path ahead
of any workspace), a conftest importing the package, coverage and report options in ``addopts``, a plugin the
tests need (anyio's), and a change merged as a pull request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from mining_repo import commit, git

from pytest_granularity.core.tasks import load_task
from pytest_granularity.core.workspace import Workspace, solution_files
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mining.miner import MineSettings, mine
from pytest_granularity.process.sandbox import NO_SANDBOX
from pytest_granularity.run.taskcheck import check_task_file
from pytest_granularity.verifier.verify import verify

PYPROJECT = """[project]
name = "calc"
dynamic = ["version"]

[project.optional-dependencies]
tests = ["pytest", "anyio"]

[tool.setuptools_scm]
version_file = "src/calc/_version.py"

[tool.pytest.ini_options]
addopts = "--cov=calc --cov-report=term-missing --cov-fail-under=99 --junitxml=report.xml -n 2 -ra --strict-markers"
markers = ["slow: takes a while"]
testpaths = ["tests"]
"""
INIT = "from ._version import version\nfrom .ops import double\n"
OPS = "def double(x):\n    return x * 2\n"
CONFTEST = "import pytest\n\nimport calc\n\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
TEST_OPS = (
    "import pytest\n\nfrom calc import double\n\n\n@pytest.mark.slow\ndef test_double():\n    assert double(2) == 4\n"
)
TEST_TRIPLE = (
    "import pytest\n\nfrom calc.ops import triple\n\n\n@pytest.mark.anyio\nasync def test_triple():\n"
    "    assert triple(2) == 6\n"
)
TEST_HALF = "from calc.ops import half\n\n\ndef test_half():\n    assert half(4) == 2\n"


def make_dev_repo(root: Path) -> dict[str, str]:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    shas = {}
    files = {
        "pyproject.toml": PYPROJECT,
        ".gitignore": "src/calc/_version.py\n",
        "src/calc/__init__.py": INIT,
        "src/calc/ops.py": OPS,
        "tests/conftest.py": CONFTEST,
        "tests/test_ops.py": TEST_OPS,
    }
    shas["initial"] = commit(root, "Start the calc package", files)
    shas["triple"] = commit(
        root,
        "Add triple to the operations",
        {"src/calc/ops.py": OPS + "\n\ndef triple(x):\n    return x * 3\n", "tests/test_triple.py": TEST_TRIPLE},
    )
    git(root, "checkout", "-q", "-b", "half")
    commit(
        root,
        "Add half",
        {"src/calc/ops.py": OPS + "\n\ndef triple(x):\n    return x * 3\n\n\ndef half(x):\n    return x // 2\n"},
    )
    commit(root, "Test half", {"tests/test_half.py": TEST_HALF})
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "half", "-m", "Merge pull request #7 from someone/half\n\nAdd a half operation")
    shas["merge"] = git(root, "rev-parse", "HEAD").strip()
    # what `pip install -e .` leaves: the version file the build writes, ignored by git
    (root / "src/calc/_version.py").write_text("version = '0.1.dev1'\n")
    return shas


@pytest.fixture(scope="module")
def mined_dev(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("dev")
    repo = root / "calc"
    shas = make_dev_repo(repo)
    out = root / "tasks"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(repo / "src"))  # the editable install: the checkout ahead of any workspace
        summary = mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    assert not summary.interrupted
    return repo, out, shas


def test_a_commit_and_a_pull_request_merge_are_both_kept(mined_dev) -> None:
    _, out, shas = mined_dev
    commits = json.loads((out / "mined.json").read_text())["commits"]
    assert commits[shas["triple"]].get("kept"), commits[shas["triple"]]
    assert commits[shas["merge"]].get("kept"), commits[shas["merge"]]
    merged = load_task(out / commits[shas["merge"]]["kept"])
    assert merged.prompt.startswith("Add a half operation")  # the pull request's title, not "Merge pull request"
    assert merged.verifier_select == ("tests/test_half.py::test_half",)


def test_the_task_says_how_the_project_runs_its_tests(mined_dev) -> None:
    _, out, shas = mined_dev
    row = json.loads((out / "mined.json").read_text())["commits"][shas["triple"]]
    data = yaml.safe_load((out / row["kept"] / "task.yaml").read_text())
    assert data["fixture_generated"] == ["src/calc/_version.py"]
    spec = data["pytest"]
    assert spec["import_roots"] == {"calc": "src"}  # one folder: a string
    assert spec["addopts"] == ["-ra", "--strict-markers"]
    assert spec["dropped"] == [
        "--cov=calc",
        "--cov-report=term-missing",
        "--cov-fail-under=99",
        "--junitxml=report.xml",
        "-n",
        "2",
    ]
    assert {"module": "anyio.pytest_plugin", "distribution": "anyio"} in spec["plugins"]
    assert spec["options"]["markers"] == ["slow: takes a while"]


def test_with_the_project_installed_editable_the_verifier_judges_the_workspace(mined_dev, monkeypatch) -> None:
    repo, out, shas = mined_dev
    monkeypatch.setenv("PYTHONPATH", str(repo / "src"))  # HEAD's code, where triple exists, ahead of the workspace
    row = json.loads((out / "mined.json").read_text())["commits"][shas["triple"]]
    task = load_task(out / row["kept"])
    with Workspace.for_task(task) as untouched:
        assert (untouched.root / "src/calc/_version.py").is_file()
        assert not verify(task, untouched, NO_SANDBOX).accepted
    with Workspace.for_task(task) as solved:
        solved.apply(solution_files(task), task.solution_delete)
        assert verify(task, solved, NO_SANDBOX).accepted


def test_the_prompt_names_what_the_tests_use_and_check_refuses_a_prompt_that_does_not(mined_dev, tmp_path) -> None:
    _, out, shas = mined_dev
    row = json.loads((out / "mined.json").read_text())["commits"][shas["triple"]]
    task = load_task(out / row["kept"])
    assert task.prompt == "Add triple to the operations\n\nThe tests use:\n- calc.ops.triple(x)\n"
    data = yaml.safe_load(task.path.read_text())
    data["prompt"] = "Add a tripling operation\n"
    task.path.write_text(yaml.safe_dump(data))
    try:
        problems = check_task_file(task.path, MacroRegistry.load(), adversaries=False).problems
    finally:
        data["prompt"] = task.prompt
        task.path.write_text(yaml.safe_dump(data))
    assert problems == (
        "underspecified: the fail-to-pass tests use triple, new in the commit, which the prompt never names",
    )
