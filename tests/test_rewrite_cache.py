"""Rewritten asserts kept by a warm server: used only for the content they were made from, made only from
content the harness vouched for, and a verifier's hidden files only in the verifier's own server."""

from __future__ import annotations

import os
import textwrap
import threading
from pathlib import Path

import pytest
from _pytest.assertion import rewrite
from test_pytest_server import SANDBOXES, stop_servers, workspace

from pytest_granularity.core import vouched
from pytest_granularity.core.vouched import digest
from pytest_granularity.core.workspace import read_tree
from pytest_granularity.process import pytest_process, rewrite_cache
from pytest_granularity.process.pytest_process import COLD_ENV, run_pytest
from pytest_granularity.process.rewrite_cache import RewriteCache

TEST_FILE = "def test_one():\n    x = 1\n    assert x + 1 == 3, 'a rewritten assert'\n"
KEPT_PROBE = """
import sys

def test_kept():
    frame = sys._getframe()
    while frame is not None:
        cache = frame.f_locals.get("rewrites")
        if cache is not None and hasattr(cache, "codes"):
            print("KEPT", sorted(path.rsplit("/", 1)[-1] for path, _ in cache.codes))
            return
        frame = frame.f_back
    raise AssertionError("no server cache on the stack")
"""


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """Every run runs (no memo), pytest's own rewriting is put back, and no vouch outlives its test."""
    monkeypatch.setattr(pytest_process, "_MEMO", type(pytest_process._MEMO)())
    monkeypatch.setattr(rewrite, "_rewrite_test", rewrite._rewrite_test)
    monkeypatch.setattr(vouched, "_vouched", {})
    yield
    stop_servers()


def _learned(tmp_path: Path, files: dict[str, str], vouch: set[str], hints: list[str]) -> RewriteCache:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cache = RewriteCache()
    vouched = frozenset(digest((tmp_path / name).read_bytes()) for name in vouch)
    cache.learn("\n".join(hints).encode(), str(tmp_path), vouched)
    return cache


def test_kept_code_is_used_for_the_content_it_was_made_from_and_only_for_it(tmp_path):
    path = tmp_path / "test_a.py"
    cache = _learned(tmp_path, {"test_a.py": TEST_FILE}, {"test_a.py"}, [str(path)])
    original, misses = rewrite._rewrite_test, []
    cache.install(misses)
    first, code = rewrite._rewrite_test(path, None)
    assert code is cache.codes[(str(path), digest(path.read_bytes()))] and misses == []
    assert first == original(path, None)[0]
    path.write_text(TEST_FILE.replace("3", "2"))
    first, code = rewrite._rewrite_test(path, None)
    assert misses == [str(path)] and code not in cache.codes.values() and first == original(path, None)[0]


def test_only_vouched_regular_files_inside_the_folder_that_rewrite_cleanly_are_kept(tmp_path):
    inside, outside = tmp_path / "ws", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "test_out.py").write_text(TEST_FILE)
    (inside / "test_link.py").symlink_to(outside / "test_out.py")
    os.mkfifo(inside / "test_fifo.py")
    files = {
        "test_kept.py": TEST_FILE,
        "test_agent.py": TEST_FILE + "# written by an agent\n",
        "test_warns.py": "def test_tuple():\n    assert (1, 'always true')\n",
        "test_broken.py": "def test_(:\n",
    }
    names = [*files, "test_link.py", "test_fifo.py"]
    hints = [str(inside / n) for n in names] + [str(outside / "test_out.py"), "relative/test_x.py"]
    learned: list[RewriteCache] = []
    vouched = {"test_kept.py", "test_warns.py", "test_broken.py"}
    learner = threading.Thread(target=lambda: learned.append(_learned(inside, files, vouched, hints)), daemon=True)
    learner.start()
    learner.join(10)
    assert learned, "learning blocked on a FIFO"
    cache = learned[0]
    assert [Path(path).name for path, _ in cache.codes] == ["test_kept.py"]


def _kept_after(root: Path, first_run: list[str], sandbox, isolated: bool = False) -> list[str]:
    """What a server keeps after one run in ``root``, as the next run's own code can read it."""
    run_pytest(root, first_run, 60, isolated=isolated, sandbox=sandbox)
    pytest_process._MEMO.clear()  # an earlier probe's answer is not this one's
    probe = run_pytest(root, ["-s", "test_probe.py"], 60, sandbox=sandbox)
    line = next(line for line in probe.output.splitlines() if line.startswith("KEPT"))
    kept = eval(line.removeprefix("KEPT "))  # a list of file names, printed by the probe above
    return [name for name in kept if name != "test_probe.py"]  # kept after an earlier probe


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_run_teaches_its_server_the_vouched_files_only_and_a_verifier_run_nothing(tmp_path, sandbox):
    root = workspace(tmp_path, {"test_set_up.py": TEST_FILE, "test_probe.py": KEPT_PROBE})
    (root / "_granularity_verifier").mkdir()
    (root / "_granularity_verifier" / "test_hidden.py").write_text(TEST_FILE.replace("one", "hidden"))
    vouched.vouch(root, read_tree(root))  # even vouched, a verifier's file is never kept
    (root / "test_by_agent.py").write_text(TEST_FILE.replace("one", "agent"))
    assert _kept_after(root, ["_granularity_verifier"], sandbox, isolated=True) == []
    assert _kept_after(root, ["test_set_up.py", "test_by_agent.py"], sandbox) == ["test_set_up.py"]


def _kept(run: pytest_process.PytestRun) -> list[str]:
    line = next(line for line in run.output.splitlines() if "KEPT" in line)
    return eval(line[line.index("KEPT") + 4 :])  # a list of file names, printed by the probe above


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_hidden_files_laid_for_a_verifier_run_are_kept_by_the_verifiers_server_alone(tmp_path, sandbox):
    root = workspace(tmp_path, {"test_probe.py": KEPT_PROBE})
    hidden = {"_granularity_verifier/test_hidden.py": TEST_FILE.replace("one", "hidden").encode()}
    probe = {"_granularity_verifier/test_probe.py": KEPT_PROBE.encode()}
    (root / "_granularity_verifier").mkdir()
    for rel, data in {**hidden, **probe}.items():
        (root / rel).write_bytes(data)
    first = run_pytest(root, ["_granularity_verifier/test_hidden.py"], 60, isolated=True, sandbox=sandbox, laid=hidden)
    assert first.exit_code == 1 and "a rewritten assert" in first.output
    (root / "_granularity_verifier" / "test_hidden.py").unlink()  # the verifier clears its folder at once
    verifier = run_pytest(root, ["-s", "_granularity_verifier/test_probe.py"], 60, isolated=True, sandbox=sandbox)
    assert _kept(verifier) == ["test_hidden.py"]
    agent = run_pytest(root, ["-s", "test_probe.py"], 60, sandbox=sandbox)
    assert "test_hidden.py" not in _kept(agent)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_run_on_kept_code_prints_what_a_fresh_process_does(tmp_path, sandbox, monkeypatch):
    root = workspace(tmp_path, {"test_a.py": TEST_FILE})
    vouched.vouch(root, read_tree(root))
    runs = []
    for _ in range(2):  # the second on code the server kept after the first
        runs.append(run_pytest(root, ["test_a.py"], 60, sandbox=sandbox))
        pytest_process._MEMO.clear()
    monkeypatch.setenv(COLD_ENV, "1")
    cold = run_pytest(root, ["test_a.py"], 60, sandbox=sandbox)
    assert "a rewritten assert\nE   assert (1 + 1) == 3" in cold.output
    assert [run.output for run in runs] == [cold.output] * 2 and runs[1].exit_code == cold.exit_code == 1


def test_a_child_tells_its_server_nothing_past_the_limit():
    assert rewrite_cache.hinted(["/w/test_a.py", "/w/test_b.py"]) == b"/w/test_a.py\n/w/test_b.py"
    assert rewrite_cache.hinted(["/w/" + "x" * rewrite_cache.HINTS_BYTES]) == b""


def test_a_workspace_set_up_for_a_task_is_vouched_for_until_it_goes(fix_add):
    from pytest_granularity.core.workspace import Workspace

    with Workspace.for_task(fix_add) as ws:
        assert vouched.vouched_for(ws.root / "tests") == {
            digest(data) for rel, data in ws.initial.items() if rel.endswith(".py")
        }
        (ws.root / "new_test.py").write_text(textwrap.dedent(TEST_FILE))
        assert digest((ws.root / "new_test.py").read_bytes()) not in vouched.vouched_for(ws.root)
    assert vouched.vouched_for(ws.root) == frozenset()
