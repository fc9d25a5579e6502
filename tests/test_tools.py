from __future__ import annotations

import os
import time

import pytest

from pytest_granularity.core.tools import MICRO_TOOLS, call_tool
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.process.tool_context import ToolContext


@pytest.fixture
def ctx(fix_add):
    with Workspace.for_task(fix_add) as ws:
        yield ToolContext(ws, test_timeout=30)


def run(ctx, name, **args):
    return call_tool(MICRO_TOOLS[name], ctx, args)


def test_every_tool_has_an_object_schema():
    for tool in MICRO_TOOLS.values():
        schema = tool.schema()
        assert schema["function"]["name"] == tool.name
        assert schema["function"]["parameters"]["type"] == "object"


def test_list_files(ctx):
    obs = run(ctx, "list_files")
    assert obs.ok and obs.text.splitlines() == [
        "README.md",
        "calc/__init__.py",
        "calc/ops.py",
        "calc/report.py",
        "tests/test_ops.py",
    ]
    assert run(ctx, "list_files", path="calc").text.splitlines()[0] == "calc/__init__.py"


def test_read_file_with_and_without_range(ctx):
    whole = run(ctx, "read_file", path="calc/ops.py").text
    assert whole.startswith('calc/ops.py (lines 1-16 of 16)\n     1\t"""Arithmetic operations."""')
    part = run(ctx, "read_file", path="calc/ops.py", start_line=3, end_line=3).text
    assert part == "calc/ops.py (lines 3-3 of 16)\n     3\tSCALE = 2"
    assert not run(ctx, "read_file", path="calc/ops.py", start_line=99).ok
    assert "no such file" in run(ctx, "read_file", path="nope.py").text


def test_search(ctx):
    assert run(ctx, "search", pattern=r"def (add|total)").text.splitlines() == [
        "calc/ops.py:6: def add(a: int, b: int) -> int:",
        "calc/ops.py:11: def total(values: list[int]) -> int:",
    ]
    assert run(ctx, "search", pattern="zzz").text == "no matches"
    assert "invalid regular expression" in run(ctx, "search", pattern="(").text


def test_edit_file_exact_unique(ctx):
    assert run(ctx, "edit_file", path="calc/ops.py", old="SCALE = 2", new="SCALE = 1").ok
    assert "SCALE = 1" in (ctx.workspace.root / "calc/ops.py").read_text()
    absent = run(ctx, "edit_file", path="calc/ops.py", old="SCALE = 7", new="x")
    assert not absent.ok and "not found" in absent.text
    ambiguous = run(ctx, "edit_file", path="calc/ops.py", old="int", new="float")
    assert not ambiguous.ok and "occurs" in ambiguous.text and "times" in ambiguous.text


def test_create_and_delete(ctx):
    assert run(ctx, "create_file", path="calc/new/mod.py", content="x = 1\n").ok
    assert (ctx.workspace.root / "calc/new/mod.py").read_text() == "x = 1\n"
    assert "already exists" in run(ctx, "create_file", path="calc/ops.py", content="").text
    assert run(ctx, "delete_file", path="README.md").ok
    assert "no such file" in run(ctx, "delete_file", path="README.md").text
    assert ctx.workspace.changes().created == ("calc/new/mod.py",)


def test_bad_arguments_are_an_observation(ctx):
    obs = run(ctx, "edit_file", path="calc/ops.py", old="x")
    assert not obs.ok and "invalid arguments for edit_file" in obs.text and "'new' is a required property" in obs.text
    obs = run(ctx, "read_file", path="calc/ops.py", start_line="one")
    assert not obs.ok and "(start_line)" in obs.text


@pytest.mark.parametrize("tool", ["read_file", "delete_file", "list_files"])
@pytest.mark.parametrize("path", ["../escape", "/etc/hostname"])
def test_paths_that_escape_are_refused(ctx, tool, path):
    obs = run(ctx, tool, path=path)
    assert not obs.ok and "workspace" in obs.text


def test_writes_through_a_symlink_are_refused(ctx, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (ctx.workspace.root / "out").symlink_to(outside)
    obs = run(ctx, "create_file", path="out/evil.py", content="x")
    assert not obs.ok and "symlink" in obs.text
    assert not list(outside.iterdir())
    (outside / "secret.txt").write_text("secret")
    assert "secret" not in run(ctx, "search", pattern="secret").text


def test_run_tests_reports_exit_code(ctx):
    obs = run(ctx, "run_tests")
    assert "exit code 1" in obs.text and "3 failed" in obs.text
    run(ctx, "edit_file", path="calc/ops.py", old="SCALE = 2", new="SCALE = 1")
    assert "exit code 0" in run(ctx, "run_tests", paths=["tests/test_ops.py"]).text
    assert not ctx.workspace.changes().created, "running tests must not leave caches in the workspace"


def test_run_tests_timeout_kills_the_process_group(fix_add, tmp_path):
    marker = tmp_path / "child.pid"
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "tests" / "test_hang.py").write_text(
            "import subprocess, sys, time\n"
            "def test_hang():\n"
            f"    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"    open({str(marker)!r}, 'w').write(str(child.pid))\n"
            "    time.sleep(60)\n"
        )
        ctx = ToolContext(ws, test_timeout=2)
        started = time.monotonic()
        obs = run(ctx, "run_tests", paths=["tests/test_hang.py"])
    assert "timed out" in obs.text and time.monotonic() - started < 20
    child = int(marker.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the hung test's child process outlived the timeout")


def test_pytest_output_is_stable_between_identical_runs(tmp_path):
    from pytest_granularity.process.pytest_process import _stable

    scratch = tmp_path / "scratch"
    text = f"{tmp_path}/a.py:3: error {scratch}/pytest-of-root/pytest-0/x\nf = <function f at 0x7faad9917d80>\n== 3 passed in 0.02s ==\n1 failed, 2 passed in 1.32s (0:00:01)\n"
    expected = "<workspace>/a.py:3: error <tmp>/pytest-of-root/pytest-0/x\nf = <function f at 0x?>\n== 3 passed ==\n1 failed, 2 passed\n"
    assert _stable(text, tmp_path, scratch) == expected


def test_identical_workspaces_share_one_pytest_run(fix_add, monkeypatch):
    from pytest_granularity.process import pytest_process

    calls = []
    real = pytest_process._run
    monkeypatch.setattr(pytest_process, "_run", lambda *a: calls.append(a) or real(*a))
    with Workspace.for_task(fix_add) as one, Workspace.for_task(fix_add) as two:
        first = pytest_process.run_pytest(one.root, ["tests"], 30)
        assert pytest_process.run_pytest(two.root, ["tests"], 30) == first
        (two.root / "calc/ops.py").write_text("SCALE = 1\n")
        pytest_process.run_pytest(two.root, ["tests"], 30)
    assert len(calls) <= 2 and calls[-1][0] == two.root


def test_pytest_runs_the_same_on_ci(fix_add, monkeypatch):
    """pytest stops truncating assertion output under CI=true; the runs must not see it."""
    from pytest_granularity.process.pytest_process import _run
    from pytest_granularity.process.sandbox import NO_SANDBOX

    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("COLUMNS", "300")
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "tests" / "test_env.py").write_text(
            "import os\n\ndef test_env():\n    assert os.environ.get('CI') is None and os.environ.get('COLUMNS') is None\n"
        )
        assert _run(ws.root, ["tests/test_env.py"], 30, False, NO_SANDBOX, None).passed
