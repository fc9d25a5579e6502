"""Bad MCP tool calls: each is an error reply the agent can act on, and nothing leaves the workspace.

A served session trusts nothing an outside agent sends: a tool that is not offered (unknown, or
called before ``start_task``), arguments of the wrong type, missing or unexpected, paths that
leave the workspace (``..``, absolute, through a symlink), and arguments too large to be a real
call are refused with one error naming the tool and the problem; the workspace, the folder
around it and the session's state stay as they were, and the session goes on.
"""

from __future__ import annotations

import pytest
from bad_input_kit import listing, matches, time_bound
from test_mcp_server import EDIT, session

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.run.policies import FIXED_POLICIES

MICRO, MACRO = FIXED_POLICIES["micro"], FIXED_POLICIES["macro"]
HUGE = "x" * 5_000_000


@pytest.fixture
def served(fix_add, tmp_path):
    """A micro session on the fix-add files inside ``tmp_path/work``, with a file beside the workspace."""
    (tmp_path / "work").mkdir()
    root = Workspace.for_task(fix_add, parent=tmp_path / "work").root
    (tmp_path / "outside.txt").write_text("secret\n")
    (root / "link").symlink_to(tmp_path)
    return session(root, tmp_path, MICRO), root


def refused(session, tool, arguments, expected, tmp_path):
    """The call is one error reply matching ``expected`` (``*`` for any text) and changes nothing outside."""
    before = listing(tmp_path)
    with time_bound():
        reply = session.call(tool, arguments)
    assert reply.is_error, f"ACCEPTED: {reply.text[:300]!r}"
    first = reply.text.split("\n\n")[0]
    assert "\n" not in first and len(first) < 1000 and matches(first, expected), f"UNCLEAR: {reply.text[:400]!r}"
    assert listing(tmp_path) - before <= {"audit.jsonl"}, "WROTE-OUTSIDE"
    assert (tmp_path / "outside.txt").read_text() == "secret\n", "WROTE-OUTSIDE"


BEFORE_START = {
    "micro-tool": (
        "read_file",
        {"path": "calc/ops.py"},
        "error: 'read_file' is not offered now (no task); the tools offered now are: start_task",
    ),
    "unknown-tool": ("rm_rf", {}, "error: 'rm_rf' is not offered now (no task); the tools offered now are: start_task"),
    "finish": ("finish", {}, "error: 'finish' is not offered now (no task)*"),
    "prompt-missing": (
        "start_task",
        {},
        "error: invalid arguments for start_task (<root>): 'prompt' is a required property",
    ),
    "prompt-a-number": (
        "start_task",
        {"prompt": 5},
        "error: invalid arguments for start_task (prompt): 5 is not of type 'string'",
    ),
    "prompt-a-list": (
        "start_task",
        {"prompt": ["fix", "it"]},
        "error: invalid arguments for start_task (prompt): * is not of type 'string'",
    ),
    "prompt-null": (
        "start_task",
        {"prompt": None},
        "error: invalid arguments for start_task (prompt): None is not of type 'string'",
    ),
    "unexpected-argument": (
        "start_task",
        {"prompt": "fix it", "policy": "micro"},
        "error: invalid arguments for start_task (<root>): Additional properties are not allowed*",
    ),
    "huge-prompt": (
        "start_task",
        {"prompt": HUGE},
        "error: the arguments of start_task are 5000014 bytes of JSON, more than the limit of 1048576",
    ),
}


@pytest.mark.parametrize("case", sorted(BEFORE_START))
def test_a_bad_call_before_a_task_is_refused_and_no_task_starts(served, tmp_path, case):
    tool, arguments, expected = BEFORE_START[case]
    session, _ = served
    refused(session, tool, arguments, expected, tmp_path)
    assert session.run is None and session.offered() == ["start_task"]


IN_A_TASK = {
    "unknown-tool": ("rm_rf", {}, "error: 'rm_rf' is not offered now (micro); the tools offered now are: *"),
    "macro-in-micro-mode": ("replace_and_verify", {}, "error: 'replace_and_verify' is not offered now (micro)*"),
    "start-again": ("start_task", {"prompt": "again"}, "error: 'start_task' is not offered now (micro)*"),
    "path-missing": ("read_file", {}, "error: invalid arguments for read_file (<root>): 'path' is a required property"),
    "path-a-number": (
        "read_file",
        {"path": 5},
        "error: invalid arguments for read_file (path): 5 is not of type 'string'",
    ),
    "path-null": (
        "delete_file",
        {"path": None},
        "error: invalid arguments for delete_file (path): None is not of type 'string'",
    ),
    "line-a-string": (
        "read_file",
        {"path": "calc/ops.py", "start_line": "1"},
        "error: invalid arguments for read_file (start_line): '1' is not of type 'integer'",
    ),
    "line-zero": (
        "read_file",
        {"path": "calc/ops.py", "start_line": 0},
        "error: invalid arguments for read_file (start_line): 0 is less than the minimum of 1",
    ),
    "new-missing": (
        "edit_file",
        {"path": "calc/ops.py", "old": "SCALE = 2"},
        "error: invalid arguments for edit_file (<root>): 'new' is a required property",
    ),
    "paths-not-a-list": (
        "run_tests",
        {"paths": "tests"},
        "error: invalid arguments for run_tests (paths): 'tests' is not of type 'array'",
    ),
    "unexpected-argument": (
        "read_file",
        {"path": "calc/ops.py", "force": True},
        "error: invalid arguments for read_file (<root>): Additional properties are not allowed*",
    ),
    "read-dotdot": (
        "read_file",
        {"path": "../outside.txt"},
        "error: path '../outside.txt' uses '..' and would leave the workspace",
    ),
    "read-absolute": ("read_file", {"path": "/etc/passwd"}, "error: path '/etc/passwd' *"),
    "read-through-symlink": ("read_file", {"path": "link/outside.txt"}, "error: path 'link/outside.txt' *"),
    "create-dotdot": (
        "create_file",
        {"path": "../new.txt", "content": "x"},
        "error: path '../new.txt' uses '..' and would leave the workspace",
    ),
    "create-through-symlink": ("create_file", {"path": "link/new.txt", "content": "x"}, "error: path 'link/new.txt' *"),
    "edit-through-symlink": (
        "edit_file",
        {"path": "link/outside.txt", "old": "secret", "new": "gone"},
        "error: path 'link/outside.txt' *",
    ),
    "delete-absolute": ("delete_file", {"path": str(__file__)}, "error: path * *"),
    "list-dotdot": ("list_files", {"path": ".."}, "error: path '..' uses '..' and would leave the workspace"),
    "search-through-symlink": ("search", {"pattern": "secret", "path": "link"}, "error: path 'link' *"),
    "huge-new-text": (
        "edit_file",
        {**EDIT, "new": HUGE},
        "error: the arguments of edit_file are 5000054 bytes of JSON, more than the limit of 1048576",
    ),
    "huge-file": (
        "create_file",
        {"path": "big.txt", "content": HUGE},
        "error: the arguments of create_file are 5000034 bytes of JSON, more than the limit of 1048576",
    ),
}


@pytest.mark.parametrize("case", sorted(IN_A_TASK))
def test_a_bad_call_in_a_task_is_refused_and_the_task_goes_on(served, fix_add, tmp_path, case):
    tool, arguments, expected = IN_A_TASK[case]
    session, root = served
    session.call("start_task", {"prompt": fix_add.prompt})
    files = {p: (root / p).read_bytes() for p in listing(root) if (root / p).is_file() and not p.startswith("link")}
    refused(session, tool, arguments, expected, tmp_path)
    assert {p: (root / p).read_bytes() for p in files} == files and not (root / "big.txt").exists(), "ACCEPTED"
    assert session.run is not None and not session.run.ended, "the task goes on"


def test_finish_with_unexpected_arguments_is_refused(served, fix_add, tmp_path):
    session, _ = served
    session.call("start_task", {"prompt": fix_add.prompt})
    expected = "error: invalid arguments for finish (<root>): Additional properties are not allowed*"
    refused(session, "finish", {"summary": "done", "force": True}, expected, tmp_path)


def test_a_macros_arguments_of_the_wrong_type_are_a_protocol_failure(fix_add, tmp_path):
    root = Workspace.for_task(fix_add, parent=tmp_path).root
    served = session(root, tmp_path, MACRO)
    served.call("start_task", {"prompt": fix_add.prompt})
    reply = served.call("replace_and_verify", {"files": "calc/ops.py", "old": 1, "new": None})
    assert reply.is_error and matches(
        reply.text.split("\n")[0], "replace_and_verify failed (protocol_failure): invalid arguments (*"
    ), reply.text[:300]


def test_a_call_after_the_session_closed_is_refused(served, tmp_path):
    session, _ = served
    session.close()
    refused(session, "start_task", {"prompt": "fix it"}, "error: the session is closed", tmp_path)
