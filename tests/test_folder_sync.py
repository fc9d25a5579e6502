"""A kept folder brought back to a task's start holds exactly what a fresh copy holds, whatever a run left."""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
from pathlib import Path

import pytest

from pytest_granularity.core import folder_sync, workspace
from pytest_granularity.core.workspace import Workspace, WorkspaceError, remove_kept_folders


def listing(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``, caches included: its kind, mode, links, time and bytes."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", st.st_mode, st.st_mtime_ns)
            else:
                found[rel] = ("file", st.st_mode, st.st_nlink, st.st_uid, st.st_mtime_ns, path.read_bytes())
    return found


def fresh(task, tmp_path: Path) -> dict[str, tuple]:
    (tmp_path / "fresh").mkdir(parents=True, exist_ok=True)
    with Workspace.for_task(task, tmp_path / "fresh") as ws:
        return listing(ws.root)


def leave_everything(root: Path, outside: Path) -> None:
    """What a run may leave: edits that keep the size and the time, new files, folders and caches,
    kinds swapped, modes changed, a hard link and a symlink to a file outside, a FIFO."""
    ops = root / "calc" / "ops.py"
    st = ops.stat()
    ops.write_bytes(ops.read_bytes().replace(b"SCALE = 2", b"SCALE = 9"))
    os.utime(ops, ns=(st.st_atime_ns, st.st_mtime_ns))
    (root / "new.txt").write_text("left")
    (root / "calc" / "__pycache__").mkdir()
    (root / "calc" / "__pycache__" / "ops.cpython-311.pyc").write_bytes(b"stale")
    (root / "calc" / "deep" / "er").mkdir(parents=True)
    (root / "README.md").unlink()
    (root / "README.md").mkdir()
    (root / "README.md" / "inside.txt").write_text("x")
    os.chmod(root / "calc", 0o700)
    tests = next(p for p in (root / "tests").iterdir() if p.suffix == ".py")
    os.chmod(tests, 0o600)
    outside.write_text("outside")
    linked = [p for p in sorted(root.rglob("*.py")) if p not in (ops, tests)][:2]
    linked[0].unlink()
    os.link(outside, linked[0])  # other bytes, linked outside
    twin = outside.with_name("twin.py")
    twin.write_bytes(linked[1].read_bytes())
    mtime = linked[1].stat().st_mtime_ns
    linked[1].unlink()
    os.link(twin, linked[1])  # the same bytes, mode and time, but linked outside
    os.chmod(twin, (root / "calc" / "ops.py").stat().st_mode)
    os.utime(twin, ns=(mtime, mtime))
    (root / "calc" / "__init__.py").unlink()
    (root / "calc" / "__init__.py").symlink_to(outside)
    os.mkfifo(root / "pipe")


def test_a_kept_folder_is_brought_back_to_exactly_a_fresh_copy(fix_add, tmp_path, monkeypatch):
    expected = fresh(fix_add, tmp_path)
    outside = tmp_path / "outside.txt"
    try:
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as ws:
            leave_everything(ws.root, outside)
        monkeypatch.setattr(workspace, "empty_folder", None)  # the sync alone, never the fallback
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as again:
            assert again.root == ws.root
            assert listing(again.root) == expected
            with Workspace.for_task(fix_add, tmp_path / "fresh") as copy:
                assert again.initial == copy.initial
    finally:
        remove_kept_folders()
    assert outside.read_text() == "outside", "a file linked from the folder was written through"
    assert os.stat(outside.with_name("twin.py")).st_nlink == 1, "a file still linked from the folder"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a file away (CI runs as root)")
def test_a_file_given_away_is_copied_anew(fix_add, tmp_path):
    try:
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as ws:
            os.chown(ws.root / "calc" / "report.py", 4321, 4321)  # the same bytes, mode and time
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as again:
            assert listing(again.root) == fresh(fix_add, tmp_path)
    finally:
        remove_kept_folders()


def test_another_task_in_the_kept_folder_starts_from_its_own_files(fix_add, tmp_path):
    other = tmp_path / "other"
    (other / "pkg").mkdir(parents=True)
    (other / "pkg" / "mod.py").write_text("X = 1\n")
    moved = dataclasses.replace(fix_add, fixture=other, setup=None)
    try:
        for task in (fix_add, moved, fix_add):
            with Workspace.for_task(task, tmp_path, reuse=True) as ws:
                assert listing(ws.root) == fresh(task, tmp_path / "copies" / task.fixture.name)
    finally:
        remove_kept_folders()


def test_a_folder_that_cannot_be_compared_is_emptied_and_copied(fix_add, tmp_path, monkeypatch):
    def unreadable(*args):
        raise PermissionError("a run made a folder unreadable")

    try:
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as ws:
            (ws.root / "left.txt").write_text("x")
        monkeypatch.setattr(folder_sync, "_remove_unwanted", unreadable)
        with Workspace.for_task(fix_add, tmp_path, reuse=True) as again:
            assert listing(again.root) == fresh(fix_add, tmp_path)
    finally:
        remove_kept_folders()


def test_a_kept_folder_serves_one_run_at_a_time(fix_add, tmp_path):
    try:
        with Workspace.for_task(fix_add, tmp_path, reuse=True), pytest.raises(WorkspaceError, match="still in use"):
            Workspace.for_task(fix_add, tmp_path, reuse=True)
    finally:
        remove_kept_folders()


CHANGES = {
    "bytes": lambda root: (root / "calc" / "ops.py").write_bytes(b"changed\n"),
    "mode": lambda root: os.chmod(root / "calc" / "ops.py", 0o700),
    "empty-folder": lambda root: (root / "calc" / "empty").mkdir(),
    "link-target": lambda root: (root / "link").symlink_to("calc/ops.py"),
    "cache": lambda root: (root / "calc" / "__pycache__").mkdir(),
    "gone": lambda root: (root / "calc" / "ops.py").unlink(),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_fingerprint_tells_apart_every_change_sync_would_undo(fix_add, tmp_path, change):
    with Workspace.for_task(fix_add, tmp_path) as ws:
        before = folder_sync.fingerprint(ws.root)
        os.utime(ws.root / "calc" / "ops.py", ns=(1, 1))  # times are not what a folder holds
        assert folder_sync.fingerprint(ws.root) == before
        change(ws.root)
        assert folder_sync.fingerprint(ws.root) not in (before, None)


def test_a_folder_synced_to_a_copy_has_the_copys_fingerprint(fix_add, tmp_path):
    with Workspace.for_task(fix_add, tmp_path) as ws:
        copy = tmp_path / "copy"
        shutil.copytree(ws.root, copy, symlinks=True)
        leave_everything(ws.root, tmp_path / "outside.txt")
        assert folder_sync.fingerprint(ws.root) is None, "a FIFO cannot be copied: nothing may rely on it"
        folder_sync.sync(ws.root, [copy], folder_sync.keep_all)
        assert folder_sync.fingerprint(ws.root) == folder_sync.fingerprint(copy) is not None
