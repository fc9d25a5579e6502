"""Mining interrupted at any moment records nothing it did not decide, leaves nothing behind, and a resumed run
keeps exactly the tasks of an uninterrupted one; ``--repeats N`` runs each side N times; the suite is what the
change can affect."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from mining_repo import commit, make_repo

from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mining import build, miner
from pytest_granularity.mining.miner import MineSettings, mine
from pytest_granularity.process.sandbox import NO_SANDBOX

ROUND = "def round_to(value, step):\n    return value - value % step\n"
TEST_ROUND = "from calc.rounding import round_to\n\n\ndef test_round_to():\n    assert round_to(7, 5) == 5\n"
TEST_UNRELATED = "import json\n\n\ndef test_json():\n    assert json.loads('1') == 1\n"


def _repo(root: Path) -> Path:
    repo = root / "calc"
    make_repo(repo)
    commit(
        repo, "Add round_to to the rounding helpers", {"calc/rounding.py": ROUND, "tests/test_rounding.py": TEST_ROUND}
    )
    return repo


def _kept(out: Path) -> dict[str, str]:
    """Each kept task's file, by folder: what two runs must agree on (less the fixture path, which names the run)."""
    found = {}
    for path in sorted(out.glob("*/task.yaml")):
        data = yaml.safe_load(path.read_text())
        data.pop("fixture")
        found[path.parent.name] = yaml.safe_dump(data)
    return found


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("whole")
    repo = _repo(root)
    mine(repo, root / "out", MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=1))
    return repo, _kept(root / "out")


@pytest.mark.parametrize("where", ["copy", "check", "move"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupt_anywhere_records_nothing_undecided_and_the_resumed_run_keeps_the_same_tasks(
    uninterrupted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, jobs: int
) -> None:
    repo, expected = uninterrupted
    out = tmp_path / "out"
    calls = tmp_path / "calls"  # a file: forked workers share it
    calls.touch()

    def interrupt_second(real):  # the first candidate's step goes through: one decision lands before the interrupt
        def step(*args, **kwargs):
            with calls.open("a") as handle:
                handle.write("x")
            if len(calls.read_text()) >= 2:
                raise KeyboardInterrupt
            return real(*args, **kwargs)

        return step

    target = {"copy": (build, "write_tree"), "check": (miner, "check_task_file"), "move": (miner, "_move")}[where]
    monkeypatch.setattr(*target, interrupt_second(getattr(*target)))
    summary = mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=jobs))
    monkeypatch.undo()
    assert summary.interrupted
    decided = json.loads((out / "mined.json").read_text())["commits"]
    assert all("mining" not in json.dumps(row) for row in decided.values())  # no decision names a staging folder
    assert not (out / ".mining").exists()
    resumed = mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(jobs=jobs))
    assert not resumed.interrupted and resumed.candidates == 4
    assert _kept(out) == expected


def test_repeats_run_each_side_that_many_times_for_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    noting = (
        "import os\n\n\ndef test_round_to():\n    with open(os.environ['RUNS_FILE'], 'a') as runs:\n"
        "        runs.write('x')\n    from calc.rounding import round_to\n\n    assert round_to(7, 5) == 5\n"
    )
    commit(repo, "Add round_to to the rounding helpers", {"calc/rounding.py": ROUND, "tests/test_rounding.py": noting})
    counts = {}
    for repeats in (1, 4):
        runs = tmp_path / f"runs-{repeats}"
        runs.touch()
        monkeypatch.setenv("RUNS_FILE", str(runs))
        out = tmp_path / f"out-{repeats}"
        mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(revisions="HEAD~1..HEAD", repeats=repeats))
        assert len(list(out.glob("*/task.yaml"))) == 1
        counts[repeats] = len(runs.read_text())
    # 3 more runs a side, the last of which is the check's verdict on each side: made once, not again by the check
    assert counts[4] - counts[1] == 3 * 2 - 2


def test_the_suite_is_the_test_files_that_import_what_the_change_touches(tmp_path: Path) -> None:
    repo = tmp_path / "calc"
    make_repo(repo)
    commit(repo, "Test json on its own", {"tests/test_unrelated.py": TEST_UNRELATED, "calc/extra.py": "E = 1\n"})
    commit(
        repo, "Add round_to to the rounding helpers", {"calc/rounding.py": ROUND, "tests/test_rounding.py": TEST_ROUND}
    )
    out = tmp_path / "out"
    mine(repo, out, MacroRegistry.load(), NO_SANDBOX, MineSettings(revisions="HEAD~1..HEAD"))
    (task,) = out.glob("*/task.yaml")
    suite = yaml.safe_load(task.read_text())["verifier"].get("suite", [])
    assert "tests/test_unrelated.py" not in suite and os.path.exists(repo / "tests/test_unrelated.py")
