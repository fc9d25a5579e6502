"""The host lane (``scripts/host_smoke.py``) keeps what a failure needs to be read: its recordings, named."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import host_lane_loop
import host_smoke


def _lane(scratch: Path, args: argparse.Namespace) -> tuple[host_smoke.Session, host_smoke.Session]:
    (scratch / "recordings").mkdir()
    (scratch / "recordings" / "k.json").write_text("{}")
    return host_smoke.Session([], 1.0, "live output"), host_smoke.Session([], 1.0, "replay output")


@pytest.fixture
def lane_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["host_smoke.py"])
    monkeypatch.setattr(host_smoke.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(host_smoke, "lane", _lane)
    monkeypatch.delenv(host_smoke.MARK, raising=False)
    return tmp_path


def test_a_failed_lane_keeps_its_recordings_in_the_folder_it_names(lane_in: Path, capsys: pytest.CaptureFixture[str]):
    assert host_smoke.main() == 1
    [kept] = lane_in.glob("granularity-host-lane-*")
    assert (kept / "recordings" / "k.json").read_text() == "{}"
    err = capsys.readouterr().err
    assert "0 live runs reported, not 4" in err and "live output" in err
    assert err.rstrip().endswith(f"the lane's recordings, reports and pytest output are kept in {kept}")


def test_a_passed_lane_removes_its_folder(lane_in: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(host_smoke, "check", lambda *args: [])
    assert host_smoke.main() == 0
    assert list(lane_in.iterdir()) == []


def test_a_lane_that_raises_keeps_its_folder_and_names_it(lane_in: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    def interrupted(scratch: Path, args: argparse.Namespace) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(host_smoke, "lane", interrupted)
    with pytest.raises(KeyboardInterrupt):
        host_smoke.main()
    [kept] = lane_in.glob("granularity-host-lane-*")
    assert f"kept in {kept}" in capsys.readouterr().err


def test_only_the_processes_this_lane_started_count_as_left_behind(tmp_path: Path) -> None:
    """Another session's host on the same machine (the same environment, the same command) is not this lane's."""
    command = [sys.executable, "-c", "import time; time.sleep(60)", "pytest_granularity.mcp.relay"]
    ours = subprocess.Popen(command, env=os.environ | {host_smoke.MARK: str(tmp_path)})
    theirs = subprocess.Popen(command, env=os.environ | {host_smoke.MARK: str(tmp_path / "other")})
    try:
        left = host_smoke.running(tmp_path)
    finally:
        for process in (ours, theirs):
            process.kill()
            process.wait()
    assert list(left) == [ours.pid] and left[ours.pid].endswith(" pytest_granularity.mcp.relay")
    assert host_smoke.running(tmp_path) == {}


def test_the_loop_stops_at_the_first_failed_lane_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    lane = tmp_path / "lane.py"
    lane.write_text(
        "import pathlib, sys\n"
        f"count = pathlib.Path({str(tmp_path / 'count')!r})\n"
        "n = int(count.read_text()) + 1 if count.exists() else 1\n"
        "count.write_text(str(n))\n"
        "assert sys.argv[1:] == ['--steps', '3']\n"
        "sys.exit(1 if n == 3 else 0)\n"
    )
    monkeypatch.setattr(host_lane_loop, "LANE", lane)
    monkeypatch.setattr(sys, "argv", ["host_lane_loop.py", "--rounds", "5", "--steps", "3"])
    assert host_lane_loop.main() == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" in ")[0] for line in out[:3]] == [
        "host lane loop: round 1 of 5 passed",
        "host lane loop: round 2 of 5 passed",
        "host lane loop: round 3 of 5 FAILED (exit status 1)",
    ]
    assert out[3].startswith("host lane loop: 2 of 3 rounds passed, stopped at the first failure, ")
    monkeypatch.setattr(sys, "argv", ["host_lane_loop.py", "--rounds", "2", "--steps", "3"])
    assert host_lane_loop.main() == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("host lane loop: 2 of 2 rounds passed in a row, ")
