"""``granularity tasks mine`` as a user runs it: progress, the closing table, refusals, Ctrl-C and resuming."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mining_repo import commit, make_repo

from pytest_granularity import cli


def granularity(*args: str, tmp: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.Popen(
        [sys.executable, "-m", "pytest_granularity.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background job's shell ignores it
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "0"], "--limit 0: must be at least 1"),
        (["--jobs", "0"], "--jobs 0: must be at least 1"),
        (["--timeout", "0"], "--timeout 0: must be above 0"),
        (["--revisions", "nosuchbranch"], "revisions 'nosuchbranch'"),
    ],
)
def test_bad_options_are_refused_in_one_line(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    make_repo(tmp_path / "calc")
    code = cli.main(["tasks", "mine", str(tmp_path / "calc"), "-o", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("granularity tasks mine: ") and message in err


def test_a_folder_that_is_not_a_repository_is_named(tmp_path: Path, capsys) -> None:
    assert cli.main(["tasks", "mine", str(tmp_path), "-o", str(tmp_path / "out")]) == 2
    assert f"{tmp_path}: not a git repository" in capsys.readouterr().err


def test_ctrl_c_keeps_what_was_decided_leaves_nothing_and_a_second_run_resumes(tmp_path: Path) -> None:
    repo, out, tmp = tmp_path / "calc", tmp_path / "out", tmp_path / "tmp"
    make_repo(repo)
    # a candidate whose tests take a minute: the interrupt lands mid-run however late this process reads the
    # first progress line on a loaded machine (the other candidates take 2 s in all); the second run's
    # --timeout rejects it
    commit(repo, "Add a slow module", {"calc/slow.py": "X = 1\n", "tests/test_slow.py": SLOW_TEST})
    tmp.mkdir()
    process = granularity("tasks", "mine", str(repo), "-o", str(out), "--jobs", "2", tmp=tmp)
    assert process.stdout is not None
    first = process.stdout.readline()
    while first and not first.startswith("[1/4]"):
        first = process.stdout.readline()
    os.killpg(process.pid, signal.SIGINT)
    rest = process.communicate(timeout=60)[0]
    assert process.returncode == 130, first + rest
    assert "candidates decided; run the same command again to resume" in rest and "Traceback" not in rest
    decided = json.loads((out / "mined.json").read_text())["commits"]
    assert 1 <= len(decided) < 4
    assert not (out / ".mining").exists() and sorted(os.listdir(tmp)) == []
    time.sleep(0.5)
    assert not _processes_marked(str(tmp))
    again = granularity("tasks", "mine", str(repo), "-o", str(out), "--jobs", "2", "--timeout", "10", tmp=tmp)
    output = again.communicate(timeout=300)[0]
    assert again.returncode == 0, output
    lines = [line for line in output.splitlines() if line.startswith("[")]
    assert len(lines) == 4 - len(decided), output  # the decided commits are not redone
    assert "| kept | 1 |" in output and len(list(out.glob("*/task.yaml"))) == 1


SLOW_TEST = "import time\n\nfrom calc.slow import X\n\n\ndef test_slow():\n    time.sleep(60)\n    assert X == 1\n"


def _processes_marked(text: str) -> list[int]:
    """Processes still running with ``text`` in their environment (the run's TMPDIR)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if text.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
