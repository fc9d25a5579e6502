"""A long history mined on several runners: ``tasks mine --shard K/N`` and ``tasks merge``.

The shards of a history, merged, are the folder one run writes: the same task folders, the same task files and
the same decisions. The merge refuses in one line whatever would make it something else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from mining_repo import make_repo

from pytest_granularity import cli
from pytest_granularity.core.errors import InputError
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mining.miner import MineSettings, mine
from pytest_granularity.mining.shards import in_shard, parse_shard
from pytest_granularity.process.sandbox import NO_SANDBOX


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but the ledger, by its path there."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "mined.json"
    }


def decisions(folder: Path) -> dict[str, dict[str, Any]]:
    commits = json.loads((folder / "mined.json").read_text())["commits"]
    return {sha: {k: v for k, v in row.items() if k != "seconds"} for sha, row in commits.items()}


def test_the_shards_of_a_history_merged_are_the_folder_one_run_writes(tmp_path: Path, capsys) -> None:
    repo = tmp_path / "calc"
    shas = make_repo(repo)
    registry = MacroRegistry.load()
    whole, merged = tmp_path / "whole", tmp_path / "merged"
    mine(repo, whole, registry, NO_SANDBOX, MineSettings(jobs=1))
    shards = [tmp_path / "downloaded" / f"mined-{k}" for k in (1, 2)]  # a level deeper: the fixture is named again
    for k, folder in enumerate(shards, 1):
        mine(repo, folder, registry, NO_SANDBOX, MineSettings(jobs=1, shard=(k, 2)))
    # newest first: the commit that says nothing new, the vacuous one, the fix; dealt out to 1, 2, 1
    assert set(decisions(shards[0])) == {shas["passes_before"], shas["fix"]}
    assert set(decisions(shards[1])) == {shas["vacuous"]}
    assert [run["shard"] for run in json.loads((shards[1] / "mined.json").read_text())["runs"]] == ["2/2"]

    assert cli.main(["tasks", "merge", *map(str, shards), "-o", str(merged)]) == 0
    assert "merged 1 tasks and 3 decisions of 2 folders" in capsys.readouterr().out
    assert files_of(merged) == files_of(whole) and len(list(merged.glob("*/task.yaml"))) == 1
    assert decisions(merged) == decisions(whole)
    ledger = json.loads((merged / "mined.json").read_text())
    assert ledger["repository"] == str(repo.resolve())
    assert [run["shard"] for run in ledger["runs"]] == ["1/2", "2/2"]
    assert "shard" not in json.loads((whole / "mined.json").read_text())["runs"][0]


@pytest.mark.parametrize(("text", "shard"), [("1/1", (1, 1)), ("2/4", (2, 4)), ("4/4", (4, 4))])
def test_a_shard_is_k_of_n(text: str, shard: tuple[int, int]) -> None:
    assert parse_shard(text) == shard


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3/2", "--shard 3/2: K must be between 1 and N"),
        ("0/2", "--shard 0/2: K must be between 1 and N"),
        ("1/0", "--shard 1/0: N must be at least 1"),
        ("2", "--shard 2: give K/N, the K-th of N parts (such as 1/4)"),
        ("a/b", "--shard a/b: give K/N"),
        ("-1/2", "--shard -1/2: give K/N"),
    ],
)
def test_a_shard_that_is_not_k_of_n_is_refused_in_one_line(tmp_path: Path, capsys, text: str, message: str) -> None:
    with pytest.raises(InputError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_shard(text)
    code = cli.main(["tasks", "mine", str(tmp_path), "-o", str(tmp_path / "out"), f"--shard={text}"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"granularity tasks mine: {message}") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_shards_deal_the_candidates_out_in_turn_and_together_hold_each_once() -> None:
    candidates = list(range(7))
    assert in_shard(candidates, (1, 3)) == [0, 3, 6] and in_shard(candidates, (3, 3)) == [2, 5]
    assert in_shard(candidates, None) == candidates and in_shard(candidates, (1, 1)) == candidates
    assert sorted(c for k in (1, 2, 3) for c in in_shard(candidates, (k, 3))) == candidates
    assert in_shard(candidates[:1], (2, 2)) == []


TASK = {
    "id": "calc-1234567-clamp",
    "family": "simple",
    "prompt": "Clamp\n",
    "fixture": "../../calc",
    "fixture_ref": "a" * 40,
    "verifier": {"tests": "verifier/"},
}


def shard_folder(
    folder: Path,
    repository: str = "/src/calc",
    commits: dict[str, dict[str, Any]] | None = None,
    tasks: dict[str, dict[str, Any]] | None = None,
    test: str = "def test_clamp(): pass\n",
) -> Path:
    """A folder as ``tasks mine`` writes it, by hand: its ledger and its task folders (a task file and a test)."""
    folder.mkdir(parents=True)
    ledger = {"repository": repository, "commits": commits or {}, "runs": [{"revisions": "HEAD", "seconds": 1.0}]}
    (folder / "mined.json").write_text(json.dumps(ledger))
    for name, data in (tasks or {}).items():
        (folder / name / "verifier").mkdir(parents=True)
        (folder / name / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        (folder / name / "verifier" / "test_clamp.py").write_text(test)
    return folder


def merge(capsys, *folders: Path, out: Path) -> tuple[int, str]:
    code = cli.main(["tasks", "merge", *map(str, folders), "-o", str(out)])
    return code, capsys.readouterr().err


def test_a_merged_task_names_the_ledgers_repository_from_its_new_place(tmp_path: Path, capsys) -> None:
    kept = {"b" * 40: {"kept": TASK["id"], "seconds": 3.0}, "c" * 40: {"reason": "flaky", "seconds": 2.0}}
    one = shard_folder(tmp_path / "a" / "b" / "one", commits=kept, tasks={TASK["id"]: TASK})
    # the same decisions and task again, decided in other times and named from elsewhere: one task, one decision each
    again = {sha: {**row, "seconds": 9.0} for sha, row in kept.items()}
    two = shard_folder(tmp_path / "two", commits=again, tasks={TASK["id"]: {**TASK, "fixture": "../elsewhere"}})
    assert merge(capsys, one, two, out=tmp_path / "out") == (0, "")
    merged = yaml.safe_load((tmp_path / "out" / TASK["id"] / "task.yaml").read_text())
    assert merged["fixture"].startswith("../") and merged == {**TASK, "fixture": merged["fixture"]}
    assert os.path.normpath(tmp_path.resolve() / "out" / TASK["id"] / merged["fixture"]) == "/src/calc"
    ledger = json.loads((tmp_path / "out" / "mined.json").read_text())
    assert ledger["commits"] == kept and len(ledger["runs"]) == 2 and ledger["repository"] == "/src/calc"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [TASK["id"], "mined.json"]


def test_a_commit_decided_differently_by_two_shards_is_refused(tmp_path: Path, capsys) -> None:
    sha = "b" * 40
    one = shard_folder(tmp_path / "one", commits={sha: {"kept": TASK["id"]}}, tasks={TASK["id"]: TASK})
    two = shard_folder(tmp_path / "two", commits={sha: {"reason": "tests pass before"}})
    code, err = merge(capsys, one, two, out=tmp_path / "out")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(
        f"granularity tasks merge: commit bbbbbbb is decided differently in {one} (kept as {TASK['id']}) and {two}"
        " (rejected: tests pass before)"
    )
    assert not (tmp_path / "out").exists()


def test_two_task_folders_of_one_name_with_different_contents_are_refused(tmp_path: Path, capsys) -> None:
    one = shard_folder(tmp_path / "one", tasks={TASK["id"]: TASK})
    two = shard_folder(tmp_path / "two", tasks={TASK["id"]: TASK}, test="def test_clamp(): assert 0\n")
    code, err = merge(capsys, one, two, out=tmp_path / "out")
    assert (code, err) == (
        2,
        f"granularity tasks merge: {one / TASK['id']} and {two / TASK['id']}: two task folders of one name with"
        " different contents\n",
    )
    assert not (tmp_path / "out").exists()


def test_ledgers_of_different_repositories_are_refused(tmp_path: Path, capsys) -> None:
    one = shard_folder(tmp_path / "one", repository="/src/calc")
    two = shard_folder(tmp_path / "two", repository="/src/other")
    code, err = merge(capsys, one, two, out=tmp_path / "out")
    assert (
        code == 2
        and err == f"granularity tasks merge: {two / 'mined.json'}: records mining of /src/other, not /src/calc\n"
    )


def test_a_folder_without_a_ledger_is_refused(tmp_path: Path, capsys) -> None:
    one = shard_folder(tmp_path / "one")
    (tmp_path / "two").mkdir()
    code, err = merge(capsys, one, tmp_path / "two", out=tmp_path / "out")
    assert (code, err) == (
        2,
        f"granularity tasks merge: {tmp_path / 'two'}: no mined.json; give folders that granularity tasks mine wrote\n",
    )


def test_an_output_folder_that_is_not_empty_is_refused_and_left_alone(tmp_path: Path, capsys) -> None:
    one = shard_folder(tmp_path / "one", tasks={TASK["id"]: TASK})
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    assert merge(capsys, one, out=out) == (
        2,
        f"granularity tasks merge: -o {out}: is not empty; merge into a new folder\n",
    )
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    (out / "notes.txt").unlink()
    assert merge(capsys, one, out=out)[0] == 0  # an empty folder is a new one


@pytest.mark.parametrize("command", ["mine", "merge"])
@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("{file}", "-o: {file} is a file, not a folder"),
        ("/dev/null", "-o: /dev/null is a character device, not a folder"),
        ("{file}/out", "-o: cannot create {file}/out: {file} is a file, not a folder"),
        ("/proc/granularity/out", "-o: cannot write in /proc: "),
    ],
)
def test_an_output_that_cannot_be_a_folder_is_refused_in_words(
    tmp_path: Path, capsys, command: str, output: str, problem: str
) -> None:
    file = tmp_path / "file"
    file.write_text("")
    source = tmp_path if command == "mine" else shard_folder(tmp_path / "one")  # refused before it is read
    code = cli.main(["tasks", command, str(source), "-o", output.format(file=file)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"granularity tasks {command}: " + problem.format(file=file)), err
    assert "Errno" not in err and err.count("\n") == 1
