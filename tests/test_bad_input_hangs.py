"""Every tool and every input file is bounded in time and size: a hostile pattern or file is an answer, not a hang.

Round three hung the ``search`` tool (and with it the MCP server, which then never answered) on a
pattern that backtracks exponentially over a long line: the search now runs under a time budget. A
baseline read from ``/dev/full`` grew to 24 GB, and a FIFO blocked its reader: every input file is
now read by ``input_files.read_bounded``, which refuses what is not a regular file and what is too large.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from bad_input_kit import assert_error, assert_refused, cli, time_bound
from test_mcp_server import session

from pytest_granularity.agents import InfrastructureError
from pytest_granularity.agents.model_cache import _read as read_recording
from pytest_granularity.core.input_files import MAX_INPUT_BYTES
from pytest_granularity.core.tools import MICRO_TOOLS, SEARCH_SECONDS, call_tool
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.gate.baseline import BaselineError, load_baseline
from pytest_granularity.process.tool_context import ToolContext
from pytest_granularity.routing.routers import Router, RouterError
from pytest_granularity.run.policies import FIXED_POLICIES

LONG_LINE = "a" * 5000 + "!\n"
STOPPED = (
    "error: the search was stopped after 2s of matching (at long.txt:1): the pattern backtracks too much;"
    " avoid nested repetition such as (a|aa)+"
)


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)+$"])
def test_a_catastrophic_pattern_is_answered_within_the_search_budget(fix_add, tmp_path, pattern):
    with Workspace.for_task(fix_add, parent=tmp_path) as ws:
        (ws.root / "long.txt").write_text(LONG_LINE)
        started = time.process_time()
        with time_bound():
            seen = call_tool(MICRO_TOOLS["search"], ToolContext(ws), {"pattern": pattern})
    assert time.process_time() - started < SEARCH_SECONDS + 1, "HANG: past the search budget"
    assert seen.text == STOPPED, f"UNCLEAR: {seen.text[:300]!r}"


def test_the_mcp_server_answers_again_after_a_catastrophic_search(fix_add, tmp_path):
    root = Workspace.for_task(fix_add, parent=tmp_path).root
    (root / "long.txt").write_text(LONG_LINE)
    served = session(root, tmp_path, FIXED_POLICIES["micro"])
    served.call("start_task", {"prompt": fix_add.prompt})
    with time_bound():
        first = served.call("search", {"pattern": "(a|aa)+$"})
        second = served.call("search", {"pattern": "SCALE"})
    assert first.is_error and first.text.startswith("error: the search was stopped"), f"UNCLEAR: {first.text!r}"
    assert not second.is_error and "calc/ops.py" in second.text


# --- input files: refused by what they are and by their size, never read without end --------------


@pytest.fixture
def specials(tmp_path):
    """Paths that are not regular files, and a sparse file past the input bound (no disk is used)."""
    os.mkfifo(tmp_path / "pipe")
    with open(tmp_path / "huge.json", "wb") as handle:
        handle.truncate(MAX_INPUT_BYTES + 1)
    return {
        "dev-full": "/dev/full",
        "dev-zero": "/dev/zero",
        "fifo": str(tmp_path / "pipe"),
        "huge": str(tmp_path / "huge.json"),
    }


WHY = {
    "dev-full": "it is a character device, not a regular file",
    "dev-zero": "it is a character device, not a regular file",
    "fifo": "it is a FIFO, not a regular file",
    "huge": f"it is larger than the {MAX_INPUT_BYTES} bytes an input file may have",
}


@pytest.mark.parametrize("case", sorted(WHY))
def test_a_baseline_that_is_not_a_file_or_too_large_is_one_error(specials, tmp_path, case):
    path = specials[case]
    assert_error(lambda: load_baseline(path, tmp_path), BaselineError, f"{path}: cannot read the baseline: {WHY[case]}")


@pytest.mark.parametrize("case", sorted(WHY))
def test_a_router_that_is_not_a_file_or_too_large_is_one_error(specials, case):
    path = specials[case]
    assert_error(lambda: Router.load(Path(path)), RouterError, f"{path}: cannot read the router: {WHY[case]}")


@pytest.mark.parametrize("case", sorted(WHY))
def test_a_report_that_is_not_a_file_or_too_large_is_one_error(specials, capsys, case):
    path = specials[case]
    ended = cli(["report", path], capsys, seconds=20)
    read = path if case == "huge" else f"{path}.json"  # a report is its .json and .jsonl: there is no /dev/full.json
    why = WHY[case] if case == "huge" else "No such file or directory"
    assert_refused(ended, f"granularity report: {read}: field '<file>': cannot read: {why}")


@pytest.mark.parametrize("case", sorted(WHY))
def test_a_recording_that_is_not_a_file_or_too_large_is_one_error(specials, case):
    path = Path(specials[case])
    assert_error(lambda: read_recording(path), InfrastructureError, f"{path}: unreadable recording ({WHY[case]})")


def test_a_recording_nested_too_deeply_names_the_file(tmp_path):
    path = tmp_path / "recording.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    expected = f"{path}: unreadable recording (nested too deeply to read)"
    assert_error(lambda: read_recording(path), InfrastructureError, expected)
