"""A macro call made again on the same folder state is replayed exactly, and only where a replay is exact."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest
from macro_helpers import REGISTRY, workspace

from pytest_granularity.core.failures import FailureClass, Fault, InjectedFault
from pytest_granularity.core.folder_sync import fingerprint, keep_all, sync
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroContext, MacroOutcome, call_memo, invoke
from pytest_granularity.macros.call_memo import invoke_remembered
from pytest_granularity.macros.runtime import FaultOnce, no_faults
from pytest_granularity.process.pytest_process import test_time

PROJECT = {
    "calc/__init__.py": "",
    "calc/ops.py": "SCALE = 2\n\ndef scale(x):\n    return x * SCALE\n",
    "tests/test_ops.py": "from calc.ops import scale\n\ndef test_scale():\n    assert scale(2) == 6\n",
    "docs/old/notes.md": "notes\n",
}
ARGS = {"files": ["calc/ops.py"], "old": "SCALE = 2", "new": "SCALE = 3", "tests": ["tests"]}


@pytest.fixture(autouse=True)
def empty_memo():
    call_memo._MEMO.clear()
    yield
    call_memo._MEMO.clear()


@pytest.fixture
def kept(tmp_path: Path) -> tuple[Workspace, Path]:
    """A workspace in a kept folder (as a benchmark runner's), and a pristine copy to bring it back to."""
    root = tmp_path / "home" / "workspace"
    root.mkdir(parents=True)
    workspace(root, PROJECT)
    pristine = tmp_path / "pristine"
    shutil.copytree(root, pristine, symlinks=True)
    return Workspace(root, reused=True), pristine


def counted(monkeypatch, effect=None, outcome: MacroOutcome | None = None) -> list[MacroContext]:
    """Stand in for the real ``invoke``: note each call, apply ``effect`` to its folder, return ``outcome``."""
    made: list[MacroContext] = []

    def fake(macro, ctx, fault):
        made.append(ctx)
        if effect is not None:
            effect(ctx.root)
        return outcome or MacroOutcome(macro.name, None, "done")

    monkeypatch.setattr(call_memo, "invoke", fake)
    return made


def context(ws: Workspace, **changes) -> MacroContext:
    return MacroContext(ws, dict(ARGS, **changes), test_timeout=60)


def made_twice(ws: Workspace, made: list[MacroContext]) -> bool:
    """Whether the same call, twice on the same state, was made both times."""
    macro = REGISTRY.get("replace_and_verify")
    for _ in range(2):
        invoke_remembered(macro, context(ws))
    return len(made) == 2


def test_the_same_call_on_the_same_state_is_replayed_with_what_it_left(kept, monkeypatch):
    ws, pristine = kept
    macro = REGISTRY.get("replace_and_verify")
    first = invoke_remembered(macro, context(ws))
    assert first.ok and first.changes.modified == ("calc/ops.py",)
    left = fingerprint(ws.root)
    sync(ws.root, [pristine], keep_all)
    assert fingerprint(ws.root) != left
    monkeypatch.setattr(call_memo, "invoke", lambda *call: pytest.fail("the call was made again"))
    again = invoke_remembered(macro, context(ws))
    assert again == first
    assert fingerprint(ws.root) == left
    assert "SCALE = 3" in (ws.root / "calc/ops.py").read_text()


def test_a_replay_lays_folders_modes_links_and_deletions_as_the_call_left_them(kept, monkeypatch):
    ws, pristine = kept

    def effect(root: Path) -> None:
        (root / "empty" / "nested").mkdir(parents=True)
        shutil.rmtree(root / "docs" / "old")
        os.chmod(root / "calc" / "ops.py", 0o755)
        (root / "link.py").symlink_to("calc/ops.py")
        (root / "calc" / "new.py").write_text("NEW = 1\n")

    made = counted(monkeypatch, effect)
    macro = REGISTRY.get("replace_and_verify")
    first = invoke_remembered(macro, context(ws))
    left = fingerprint(ws.root)
    sync(ws.root, [pristine], keep_all)
    assert invoke_remembered(macro, context(ws)) == first
    assert len(made) == 1
    assert fingerprint(ws.root) == left
    assert (ws.root / "empty" / "nested").is_dir() and not (ws.root / "docs" / "old").exists()
    assert os.readlink(ws.root / "link.py") == "calc/ops.py"
    assert os.stat(ws.root / "calc" / "ops.py").st_mode & 0o777 == 0o755


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "calc" / "ops.py").write_text("SCALE = 2\n"),
        lambda root: (root / "docs" / "empty").mkdir(),
        lambda root: os.chmod(root / "calc" / "ops.py", 0o600),
    ],
    ids=["bytes", "an-empty-folder", "a-mode"],
)
def test_a_call_on_another_state_is_made(kept, monkeypatch, change):
    ws, _ = kept
    made = counted(monkeypatch)
    macro = REGISTRY.get("replace_and_verify")
    invoke_remembered(macro, context(ws))
    change(ws.root)
    invoke_remembered(macro, context(ws))
    assert len(made) == 2


@pytest.mark.parametrize(
    "other",
    [
        lambda ws: context(ws, new="SCALE = 4"),
        lambda ws: MacroContext(ws, dict(ARGS), test_timeout=30),
        lambda ws: MacroContext(ws, dict(ARGS), tests=("tests/test_ops.py",), test_timeout=60),
    ],
    ids=["arguments", "timeout", "tests"],
)
def test_another_call_on_the_same_state_is_made(kept, monkeypatch, other):
    ws, _ = kept
    made = counted(monkeypatch)
    macro = REGISTRY.get("replace_and_verify")
    invoke_remembered(macro, context(ws))
    invoke_remembered(macro, other(ws))
    invoke_remembered(REGISTRY.get("summarize_module"), context(ws))
    assert len(made) == 3


def test_calls_with_fault_points_or_outside_a_kept_folder_are_never_remembered(kept, monkeypatch, tmp_path):
    ws, _ = kept
    made = counted(monkeypatch)
    macro = REGISTRY.get("replace_and_verify")

    def listening(point, name, args, root):
        return None

    for _ in range(2):
        invoke_remembered(macro, context(ws), listening)
    lone = Workspace(ws.root, reused=False)
    for _ in range(2):
        invoke_remembered(macro, context(lone))
    assert len(made) == 4
    assert not call_memo._MEMO


@pytest.mark.parametrize(
    "outcome",
    [
        MacroOutcome("replace_and_verify", FailureClass.EXECUTOR_EXCEPTION, "the macro's process died"),
        MacroOutcome("replace_and_verify", FailureClass.EXECUTOR_EXCEPTION, "ran past", timed_out=True),
        MacroOutcome("replace_and_verify", FailureClass.EXECUTOR_EXCEPTION, "injected", injected=True),
    ],
    ids=["died", "timed-out", "injected"],
)
def test_a_call_that_broke_in_the_harness_is_never_remembered(kept, monkeypatch, outcome):
    ws, _ = kept
    assert made_twice(ws, counted(monkeypatch, outcome=outcome))


def test_a_call_whose_tests_timed_out_is_never_remembered(kept, monkeypatch):
    ws, _ = kept
    monkeypatch.setattr(test_time, "timeouts", test_time.timeouts)  # put back after the test

    def a_run_timed_out(root: Path) -> None:
        test_time.timeouts += 1  # as a validation run past its timeout counts itself

    failed = MacroOutcome("replace_and_verify", FailureClass.VALIDATION_FAILURE, "the tests timed out")
    assert made_twice(ws, counted(monkeypatch, a_run_timed_out, failed))


def test_a_folder_holding_what_cannot_be_laid_is_never_remembered(kept, monkeypatch):
    ws, _ = kept
    os.mkfifo(ws.root / "pipe")
    assert made_twice(ws, counted(monkeypatch))


def test_the_oldest_call_goes_past_the_memo_size_with_its_folder(kept, monkeypatch):
    ws, _ = kept
    monkeypatch.setattr(call_memo, "MEMO_SIZE", 2)
    counted(monkeypatch)
    macro = REGISTRY.get("replace_and_verify")
    for new in ("SCALE = 3", "SCALE = 4", "SCALE = 5"):
        invoke_remembered(macro, context(ws, new=new))
    assert len(call_memo._MEMO) == 2
    assert len(list((ws.root.parent / call_memo.FOLDER).iterdir())) == 2


@pytest.mark.parametrize("point", [Fault.EARLY, Fault.LATE])
def test_a_faulted_run_s_call_is_replayed_up_to_its_fault_as_the_call_ends_there(kept, monkeypatch, point):
    """The call made with the fault and the call replayed with it end alike: the same outcome but its seconds,
    and the same folder (untouched at ``early``, the macro's work done at ``late``)."""
    ws, pristine = kept
    macro = REGISTRY.get("replace_and_verify")
    made = invoke(macro, context(ws), FaultOnce(point))
    made_left = fingerprint(ws.root)
    sync(ws.root, [pristine], keep_all)
    invoke_remembered(macro, context(ws))  # the call without a fault, remembered
    sync(ws.root, [pristine], keep_all)
    monkeypatch.setattr(call_memo, "invoke", lambda *call: pytest.fail("the call was made again"))
    fault = FaultOnce(point)
    replayed = invoke_remembered(macro, context(ws), fault)
    assert fault.fired and replayed.injected
    assert dataclasses.replace(replayed, seconds=0) == dataclasses.replace(made, seconds=0)
    assert fingerprint(ws.root) == made_left


def test_a_fault_that_fired_earlier_in_the_run_replays_the_whole_call(kept, monkeypatch):
    ws, pristine = kept
    macro = REGISTRY.get("replace_and_verify")
    first = invoke_remembered(macro, context(ws))
    sync(ws.root, [pristine], keep_all)
    fault = FaultOnce(Fault.LATE)
    fault.fired = True
    monkeypatch.setattr(call_memo, "invoke", lambda *call: pytest.fail("the call was made again"))
    assert invoke_remembered(macro, context(ws), fault) == first


def test_an_early_fault_after_preconditions_that_wrote_makes_the_call_again(kept, monkeypatch):
    """A replay cannot know the folder as such preconditions left it when an early fault ended the call."""
    ws, pristine = kept
    made = []

    def preconditions_that_write(macro, ctx, fault):
        made.append(ctx)
        (ctx.root / "written-by-preconditions.txt").write_text("x")
        fault(Fault.EARLY, macro.name, ctx.args, ctx.root)
        return MacroOutcome(macro.name, None, "done")

    monkeypatch.setattr(call_memo, "invoke", preconditions_that_write)
    macro = REGISTRY.get("replace_and_verify")
    invoke_remembered(macro, context(ws))
    for fault in (FaultOnce(Fault.LATE), no_faults):
        sync(ws.root, [pristine], keep_all)
        invoke_remembered(macro, context(ws), fault)
    assert len(made) == 1
    sync(ws.root, [pristine], keep_all)
    with pytest.raises(InjectedFault):  # the stand-in classifies nothing: what counts is that it ran
        invoke_remembered(macro, context(ws), FaultOnce(Fault.EARLY))
    assert len(made) == 2


def test_the_kept_folders_stay_within_their_bytes(kept, monkeypatch):
    ws, _ = kept
    counted(monkeypatch)
    size = sum(len(text.encode()) for text in PROJECT.values())
    macro = REGISTRY.get("replace_and_verify")
    monkeypatch.setattr(call_memo, "MEMO_BYTES", size + size // 2)  # one copy fits, not two
    for new in ("SCALE = 3", "SCALE = 4"):
        invoke_remembered(macro, context(ws, new=new))
    assert len(call_memo._MEMO) == 1
    assert len(list((ws.root.parent / call_memo.FOLDER).iterdir())) == 1
    monkeypatch.setattr(call_memo, "MEMO_BYTES", size - 1)  # a folder larger than all of it is never copied
    invoke_remembered(macro, context(ws, new="SCALE = 5"))
    assert len(call_memo._MEMO) == 1
