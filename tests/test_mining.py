"""Mining tasks from a history: what is kept is honest, what is not has one reason, the repository is untouched."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from mining_repo import commit, git, make_repo

from pytest_granularity.core.errors import InputError
from pytest_granularity.core.tasks import TaskError, load_task
from pytest_granularity.core.workspace import Workspace, WorkspaceError
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mining.miner import Ledger, MineSettings, mine
from pytest_granularity.process.sandbox import NO_SANDBOX
from pytest_granularity.run.taskcheck import check_task_file
from pytest_granularity.verifier.verify import verify


def tree_hash(folder: Path) -> str:
    """Every file under ``folder`` (a ``.git``), by path and content: what mining must never change."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], str, str]:
    root = tmp_path_factory.mktemp("mining")
    repo = root / "calc"
    shas = make_repo(repo)
    before = tree_hash(repo / ".git")
    out = root / "tasks"
    summary = mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    assert not summary.interrupted
    return repo, out, shas, before, tree_hash(repo / ".git")


def test_the_fix_is_kept_as_an_ordinary_task_that_passes_every_check(mined) -> None:
    repo, out, shas, _, _ = mined
    folders = [p.parent for p in out.glob("*/task.yaml")]
    assert [f.name for f in folders] == ["calc-" + shas["fix"][:7] + "-clamp-values-above-the-upper-bound"]
    task = load_task(folders[0])
    assert task.fixture == repo.resolve() and task.fixture_ref == shas["initial"]
    assert task.verifier_select == ("tests/test_ops.py::test_clamp_high",)
    assert task.tests == task.verifier_suite == ("tests/test_ops.py::test_add",)  # the parent's own, still passing
    assert task.prompt.strip() == "Clamp values above the upper bound\n\nclamp ignored its upper bound."
    assert task.family == "simple" and task.provenance and task.provenance["commit"] == shas["fix"]
    assert (task.solution_overlay / "calc/ops.py").is_file() and not (task.solution_overlay / "tests").exists()
    assert check_task_file(task.path, MacroRegistry.load()).problems == ()


def test_every_other_candidate_has_exactly_one_reason(mined) -> None:
    _, out, shas, _, _ = mined
    commits = json.loads((out / "mined.json").read_text())["commits"]
    assert commits[shas["vacuous"]]["reason"] == "message says nothing"
    assert commits[shas["passes_before"]]["reason"] == "tests pass before"
    assert shas["initial"] not in commits  # a root commit has no parent to be the workspace: not a candidate
    assert all(("kept" in row) != ("reason" in row) for row in commits.values())


def test_the_repository_is_never_changed(mined) -> None:
    _, _, _, before, after = mined
    assert before == after


def test_a_second_run_resumes_and_redoes_nothing(mined, tmp_path: Path) -> None:
    repo, out, _, _, _ = mined
    copy = tmp_path / "tasks"
    shutil.copytree(out, copy)
    summary = mine(repo, copy, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    assert summary.seconds < 5 and summary.kept == 1 and summary.candidates == 3


def test_a_planted_conftest_in_the_projects_tests_cannot_pass_a_mined_task(mined) -> None:
    _, out, _, _, _ = mined
    task = load_task(next(out.glob("*/task.yaml")))
    with Workspace.for_task(task) as workspace:
        (workspace.root / "tests" / "conftest.py").write_text(
            "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
        )
        (workspace.root / "conftest.py").write_text((workspace.root / "tests" / "conftest.py").read_text())
        assert not verify(task, workspace).accepted


def test_tasks_may_live_in_the_repository_they_were_mined_from(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    mine(repo, repo / "mined", MacroRegistry.load(), NO_SANDBOX, MineSettings(revisions="HEAD~2", jobs=1))
    task = load_task(next((repo / "mined").glob("*/task.yaml")))
    with Workspace.for_task(task) as workspace:  # the tree at the parent predates the task files
        assert not (workspace.root / "mined").exists()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Keep the mined tasks")
    later = yaml.safe_load(task.path.read_text())
    later["fixture_ref"] = git(repo, "rev-parse", "HEAD").strip()
    task.path.write_text(yaml.safe_dump(later))
    with pytest.raises(WorkspaceError, match="holds the task file"), Workspace.for_task(load_task(task.path)):
        pass


def test_without_a_ref_a_fixture_holding_the_task_is_still_refused(mined, tmp_path: Path) -> None:
    _, out, _, _, _ = mined
    data = yaml.safe_load(next(out.glob("*/task.yaml")).read_text())
    del data["fixture_ref"]
    folder = tmp_path / "repo" / "tasks" / data["id"]
    shutil.copytree(next(out.glob("*/task.yaml")).parent, folder)
    data["fixture"] = "../.."
    (folder / "task.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(TaskError, match="fixture"):
        load_task(folder)


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        (lambda root: root.mkdir(), "not a git repository"),
        (lambda root: None, "no such folder"),
        (lambda root: git(root.parent, "init", "-q", "--bare", root.name), "bare repository"),
    ],
    ids=["not-a-repository", "missing", "bare"],
)
def test_a_folder_that_cannot_be_mined_is_refused_by_name(tmp_path: Path, prepare, message: str) -> None:
    root = tmp_path / "repo"
    prepare(root)
    with pytest.raises(InputError, match=message):
        mine(root, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))


def test_a_shallow_clone_and_an_empty_range_are_refused(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", "shallow")
    with pytest.raises(InputError, match="shallow"):
        mine(tmp_path / "shallow", tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    with pytest.raises(InputError, match="no commits"):
        mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(revisions="HEAD..HEAD"))


def test_a_dirty_work_tree_is_read_at_its_commits_and_left_dirty(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    (repo / "calc" / "ops.py").write_text("broken(")
    (repo / "scratch.txt").write_text("mine")
    summary = mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    assert summary.kept == 1
    assert (repo / "calc" / "ops.py").read_text() == "broken(" and (repo / "scratch.txt").exists()


def test_a_huge_commit_and_a_binary_file_are_decided_not_crashed(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    files = {f"calc/gen_{n}.py": f"X = {n}\n" for n in range(25)}
    files["tests/test_gen.py"] = "def test_gen():\n    import calc.gen_1\n"
    huge = commit(repo, "Generate twenty-five constant modules", files)
    (repo / "calc" / "blob.bin").write_bytes(bytes(range(256)))
    binary = commit(
        repo,
        "Ship the lookup table as binary data",
        {
            "calc/table.py": "import pathlib\nTABLE = (pathlib.Path(__file__).parent / 'blob.bin').read_bytes()\n",
            "tests/test_table.py": "from calc.table import TABLE\n\ndef test_table():\n    assert len(TABLE) == 256\n",
        },
    )
    mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1, limit=2))
    commits = Ledger.open(tmp_path / "out", str(repo.resolve())).commits
    assert commits[huge]["reason"] == "too large"
    assert "kept" in commits[binary]
    task = load_task(next((tmp_path / "out").glob("*/task.yaml")))
    assert (task.solution_overlay / "calc" / "blob.bin").read_bytes() == bytes(range(256))


def test_nothing_is_left_beside_the_tasks(mined) -> None:
    _, out, _, _, _ = mined
    assert sorted(p.name for p in out.iterdir() if not (p / "task.yaml").exists()) == ["mined.json"]


def test_hanging_tests_a_submodule_and_a_latin_1_message_each_get_a_reason(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    hang = commit(
        repo,
        "Wait for the clamp cache to warm up",
        {
            "calc/ops.py": "import time\n" + (repo / "calc/ops.py").read_text(),
            "tests/test_slow.py": "import time\n\n\ndef test_wait():\n    time.sleep(600)\n",
        },
    )
    git(repo, "rm", "-q", "tests/test_slow.py")
    (repo / "calc" / "vendored.py").write_text("V = 1\n")
    (repo / "tests" / "test_vendored.py").write_text(
        "from calc.vendored import V\n\ndef test_v():\n    assert V == 1\n"
    )
    git(repo, "add", "-A")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{hang},third_party/lib")
    git(repo, "commit", "-q", "-m", "Vendor the lib as a submodule and use it")
    submodule = git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc" / "ops.py").write_text((repo / "calc/ops.py").read_text() + "\nNAME = 'caf\\xe9'\n")
    (repo / "tests" / "test_name.py").write_text(
        "from calc.ops import NAME\n\ndef test_name():\n    assert NAME.endswith('\\xe9')\n"
    )
    git(repo, "add", "calc/ops.py", "tests/test_name.py")  # not -A: that would drop the submodule's entry
    (tmp_path / "message").write_bytes("Name the caf\xe9 after its owner, Ren\xe9e".encode("latin-1"))
    git(repo, "-c", "i18n.commitEncoding=latin-1", "commit", "-q", "-F", str(tmp_path / "message"))
    latin = git(repo, "rev-parse", "HEAD").strip()
    before = tree_hash(repo / ".git")
    settings = MineSettings(jobs=1, limit=3, timeout=5)
    mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, settings)
    commits = Ledger.open(tmp_path / "out", str(repo.resolve())).commits
    assert commits[hang]["reason"] == "timeout"
    assert commits[submodule]["reason"] == "submodule change"
    assert "kept" in commits[latin], commits[latin]
    task = load_task(tmp_path / "out" / commits[latin]["kept"])
    assert task.prompt.startswith("Name the caf\xe9 after its owner, Ren\xe9e")
    assert tree_hash(repo / ".git") == before


def test_tests_that_write_outside_and_fork_change_nothing_outside_the_run(tmp_path: Path) -> None:
    from pytest_granularity.process.sandbox import select

    repo = tmp_path / "calc"
    make_repo(repo)
    target = repo / ".git" / "planted"
    commit(
        repo,
        "Record each clamp call in a log beside the package",
        {
            "calc/log.py": "CALLS = []\n",
            "tests/test_log.py": (
                "import os, subprocess, sys\n\nfrom calc.log import CALLS\n\n\ndef test_log():\n"
                f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True)\n"
                f"    try:\n        open({str(target)!r}, 'w').write('x')\n    except OSError:\n        pass\n"
                "    assert CALLS == []\n"
            ),
        },
    )
    before = tree_hash(repo / ".git")
    sandbox = select("bwrap", "test")
    try:
        mine(repo, tmp_path / "out", MacroRegistry.load(), sandbox, MineSettings(jobs=1, limit=1))
    finally:
        sandbox.servers.stop()
    assert not target.exists() and tree_hash(repo / ".git") == before
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if b"time.sleep(300)" in _read(p)]


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def test_a_pure_move_is_a_refactor_and_a_builtin_macro_reproduces_it(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    git(repo, "mv", "calc/ops.py", "calc/arith.py")
    tests = (repo / "tests" / "test_ops.py").read_text()
    (repo / "tests" / "test_ops.py").write_text(tests.replace("calc.ops", "calc.arith"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Move calc/ops.py to calc/arith.py")
    moved = git(repo, "rev-parse", "HEAD").strip()
    mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1, limit=1))
    row = Ledger.open(tmp_path / "out", str(repo.resolve())).commits[moved]
    assert row.get("family") == "refactor" and row.get("macro") == "move_module", row
    task = load_task(tmp_path / "out" / row["kept"])
    assert task.solution_delete == ("calc/ops.py",) and task.macro is not None
    assert task.macro.args == {"source": "calc/ops.py", "destination": "calc/arith.py"}
    assert check_task_file(task.path, MacroRegistry.load()).problems == ()


def test_a_src_layout_named_in_the_projects_config_is_on_the_hidden_tests_path(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start calc in a src layout",
        {
            "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n',
            "src/calc/__init__.py": "def double(x):\n    return x + x\n",
            "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
        },
    )
    fix = commit(
        repo,
        "Add triple beside double",
        {
            "src/calc/__init__.py": "def double(x):\n    return x + x\n\n\ndef triple(x):\n    return 3 * x\n",
            "tests/test_calc.py": "from calc import double, triple\n\n\ndef test_double():\n    assert double(2) == 4"
            "\n\n\ndef test_triple():\n    assert triple(2) == 6\n",
        },
    )
    mine(repo, tmp_path / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    row = Ledger.open(tmp_path / "out", str(repo.resolve())).commits[fix]
    task = load_task(tmp_path / "out" / row["kept"])
    assert task.verifier_pythonpath == ("src",)
    assert set(task.verifier_select) == {"tests/test_calc.py::test_double", "tests/test_calc.py::test_triple"}
