"""Partial use: a macro that makes a piece of a change, the micro tools finishing it in the same workspace, and
the run's record saying which lines the macro calls wrote (its macro coverage)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from evolution_tasks import CONFIG, write_task

from pytest_granularity import cli
from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.core.tasks import load_task
from pytest_granularity.core.tools import HAND_OVER
from pytest_granularity.core.workspace import read_tree, solved_files
from pytest_granularity.evolution.pieces import _merged
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.run.piece_calls import piece_calls
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import RunSettings, run_task

WINDOW = CONFIG.replace("TIMEOUT = 10\n", "TIMEOUT = 10\nWINDOW = 60\n").replace(">= LIMIT", "> LIMIT")


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[MacroRegistry, Path]:
    """A macro mined from two tasks that add a setting after another, and a task that needs one such setting
    and a fix no macro makes."""
    root = tmp_path_factory.mktemp("partial")
    tasks = root / "tasks"
    write_task(
        tasks,
        "backoff",
        "Add `BACKOFF = 2` after LIMIT.",
        CONFIG.replace("LIMIT = 100\n", "LIMIT = 100\nBACKOFF = 2\n"),
        "BACKOFF == 2",
    )
    write_task(
        tasks,
        "delay",
        "Add `DELAY = 1` after RETRIES.",
        CONFIG.replace("RETRIES = 3\n", "RETRIES = 3\nDELAY = 1\n"),
        "DELAY == 1",
    )
    out = root / "macros"
    assert cli.main(["macros", "mine", str(tasks), "-o", str(out), "--sandbox", "none"]) == 0
    (kept,) = [s for s in json.loads((out / "mined-macros.json").read_text())["shapes"] if s["kept"]]
    task = write_task(
        root / "new",
        "window",
        "Add `WINDOW = 60` after TIMEOUT, and make `allowed` reject exactly LIMIT items.",
        WINDOW,
        "WINDOW == 60 and not allowed(list(range(100)))",
    )
    registry = MacroRegistry.load([out / kept["name"].replace("_", "-")], builtin=False)
    assert registry.get(kept["name"]).pieces is not None
    return registry, task


def _run(mined: tuple[MacroRegistry, Path], policy: str):
    registry, folder = mined
    task = load_task(folder / "task.yaml")
    return run_task(task, FIXED_POLICIES[policy], "none", RunSettings(agent=ReferenceAgent, macros=registry))


def test_hybrid_calls_the_macro_for_its_piece_and_finishes_with_micro_tools(mined) -> None:
    result = _run(mined, "hybrid")
    assert result.success, result.verifier_output
    assert "macro --hand_over--> micro" in result.transitions
    assert not result.degraded and result.failure_class is None
    calls = [c["function"]["name"] for m in result.transcript for c in m.get("tool_calls") or []]
    assert calls[:2] == [calls[0], HAND_OVER] and calls[0].startswith("mined_")
    assert "edit_file" in calls  # the fix no macro makes
    assert result.macro_lines == [["app/config.py", "+", "WINDOW = 60"]]
    assert result.macro_coverage == 0.333  # of the reference change's three lines, the macro wrote one


def test_macro_only_is_offered_no_hand_over_and_fails_with_the_piece_made(mined) -> None:
    result = _run(mined, "macro")
    assert not result.success
    calls = [c["function"]["name"] for m in result.transcript for c in m.get("tool_calls") or []]
    assert HAND_OVER not in calls and calls[-1] == "finish"
    assert result.macro_coverage == 0.333


def test_micro_has_no_macro_lines(mined) -> None:
    result = _run(mined, "micro")
    assert result.success and result.macro_lines == [] and result.macro_coverage == 0.0


def test_a_macro_without_pieces_never_offers_the_hand_over(fix_add) -> None:
    result = run_task(fix_add, FIXED_POLICIES["hybrid"], "none", RunSettings(agent=ReferenceAgent))
    assert result.success and result.macro_calls == 1
    assert HAND_OVER not in json.dumps(result.transcript)
    assert result.macro_coverage == 1.0 and result.macro_lines


def test_a_piece_of_a_larger_commit_supports_a_shape_proved_with_the_rest_made(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    backoff = CONFIG.replace("LIMIT = 100\n", "LIMIT = 100\nBACKOFF = 2\n")
    write_task(tasks, "backoff", "Add `BACKOFF = 2` after LIMIT.", backoff, "BACKOFF == 2")
    mixed = CONFIG.replace("RETRIES = 3\n", "RETRIES = 3\nDELAY = 1\n").replace(">= LIMIT", "> LIMIT")
    check = "DELAY == 1 and not allowed(list(range(100)))"
    write_task(tasks, "delay-and-limit", "Add `DELAY = 1`; `allowed` must reject LIMIT items.", mixed, check)
    out = tmp_path / "macros"
    assert cli.main(["macros", "mine", str(tasks), "-o", str(out), "--sandbox", "none"]) == 0
    summary = json.loads((out / "mined-macros.json").read_text())
    assert summary["with_pieces"] == 1  # the mixed commit is not calls of one shape, but holds one
    (kept,) = [s for s in summary["shapes"] if s["kept"]]
    assert kept["tasks"] == ["backoff", "delay-and-limit"]
    example = out / kept["name"].replace("_", "-") / "examples" / "delay-and-limit"
    fixture = (example / "fixture" / "app" / "config.py").read_text()
    assert "> LIMIT" in fixture and "DELAY" not in fixture  # the rest of the commit made; the call makes the piece
    assert (example / "solution" / "app" / "config.py").read_text() == mixed


def test_a_piece_that_cannot_be_undone_cleanly_is_refused() -> None:
    assert _merged(b"a\nB\nc\n", b"a\nb\nc\n", b"a\nb2\nc\n") is None  # both sides rewrote the same line
    assert _merged(b"a\nb\nc\nD\n", b"a\nb\nc\nd\n", b"a\nB\nc\nd\n") == b"a\nB\nc\nD\n"


def test_handing_over_before_a_macro_that_makes_pieces_succeeded_is_refused(fix_add) -> None:
    from pytest_granularity.core.transcript import ToolCall

    class HandsOverAtOnce:
        def __init__(self, setup) -> None:
            self.calls = iter([ToolCall(HAND_OVER), ToolCall("finish")])

        def next_call(self, messages, tools):
            return next(self.calls)

    result = run_task(fix_add, FIXED_POLICIES["hybrid"], "none", RunSettings(agent=HandsOverAtOnce))
    assert "is not available" in json.dumps(result.transcript)
    assert not any("hand_over" in t for t in result.transitions)


def test_two_macros_that_make_the_same_piece_call_it_once(mined) -> None:
    registry, folder = mined
    (macro,) = list(registry)
    twin = dataclasses.replace(macro, contract={**macro.contract, "name": "twin"})
    task = load_task(folder / "task.yaml")
    initial = read_tree(task.fixture)
    calls = piece_calls([twin, macro], initial, solved_files(task, initial))
    assert [name for name, _ in calls] == [macro.name]  # by name: the mined one first; the twin's piece is made
