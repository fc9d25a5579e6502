from __future__ import annotations

import os
import subprocess

import pytest

from pytest_granularity.core.workspace import PathEscape, Workspace, WorkspaceError, read_tree, render_diff


def test_workspace_is_a_copy_with_the_setup_overlay(fix_add):
    before = read_tree(fix_add.fixture)
    with Workspace.for_task(fix_add) as ws:
        assert ws.root != fix_add.fixture and fix_add.fixture not in ws.root.parents
        assert b"SCALE = 2" in (ws.root / "calc" / "ops.py").read_bytes()
        (ws.root / "calc" / "ops.py").write_text("broken")
        (ws.root / "new.txt").write_text("x")
        (ws.root / "README.md").unlink()
    assert read_tree(fix_add.fixture) == before
    assert not ws.root.exists()


def test_changes_are_exact(fix_add):
    with Workspace.for_task(fix_add) as ws:
        assert not ws.changes()
        (ws.root / "calc" / "ops.py").write_text("changed\n")
        (ws.root / "calc" / "extra.py").write_text("x = 1\n")
        (ws.root / "README.md").unlink()
        (ws.root / "calc" / "__pycache__").mkdir()
        (ws.root / "calc" / "__pycache__" / "ops.cpython-311.pyc").write_bytes(b"\0")
        changes = ws.changes()
        assert changes.created == ("calc/extra.py",)
        assert changes.modified == ("calc/ops.py",)
        assert changes.deleted == ("README.md",)


def test_rewriting_identical_content_is_not_a_change(fix_add):
    with Workspace.for_task(fix_add) as ws:
        path = ws.root / "calc" / "ops.py"
        path.write_bytes(path.read_bytes())
        os.utime(path, (0, 0))
        assert not ws.changes()


def test_diff_shows_every_change(fix_add):
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "calc" / "ops.py").write_text(
            (ws.root / "calc" / "ops.py").read_text().replace("SCALE = 2", "SCALE = 1")
        )
        (ws.root / "notes.txt").write_text("hi\n")
        diff = ws.diff()
    assert "--- a/calc/ops.py\n+++ b/calc/ops.py\n" in diff
    assert "-SCALE = 2\n+SCALE = 1\n" in diff
    assert "--- /dev/null\n+++ b/notes.txt\n" in diff


def test_render_diff_marks_missing_final_newline():
    assert "\\ No newline at end of file" in render_diff("a", b"x", b"y\n")


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "calc/../../x", ""])
def test_resolve_refuses_escapes(fix_add, path):
    with Workspace.for_task(fix_add) as ws, pytest.raises(PathEscape):
        ws.resolve(path)


def test_resolve_refuses_symlink_out(fix_add, tmp_path):
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "link").symlink_to(tmp_path)
        with pytest.raises(PathEscape, match="symlink"):
            ws.resolve("link/secret.txt")
        (ws.root / "inner").symlink_to(ws.root / "calc")
        assert ws.resolve("inner/ops.py").name == "ops.py"


def test_missing_fixture_is_an_infrastructure_error(fix_add):
    import shutil

    shutil.rmtree(fix_add.fixture)
    with pytest.raises(WorkspaceError, match="fixture folder"):
        Workspace.for_task(fix_add)


def test_fixture_pinned_at_a_git_ref(fix_add):
    import dataclasses

    root = fix_add.fixture
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    subprocess.run([*git, "tag", "v1"], check=True)
    (root / "calc" / "ops.py").write_text("# moved on\n")
    pinned = dataclasses.replace(fix_add, fixture_ref="v1", setup=None)
    with Workspace.for_task(pinned) as ws:
        assert b"def add" in (ws.root / "calc" / "ops.py").read_bytes()
        assert not (ws.root / ".git").exists()
    with pytest.raises(WorkspaceError, match="fixture_ref 'nope'"):
        Workspace.for_task(dataclasses.replace(fix_add, fixture_ref="nope"))
