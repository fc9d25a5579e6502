"""A repository served in place, and the paths an agent can name: nothing that is not source is written.

``serve-mcp`` without ``--copy`` works in the user's repository. Its version-control metadata (a
hook or ``core.fsmonitor`` is a command the next ``git`` runs), its virtual environments (a
``.pth`` file there is code Python runs at every start) and caches are not part of the workspace:
no diff shows them, so no tool may write them. An option where a test path is expected is refused
too (``--junitxml=/elsewhere`` is a write outside). Paths the file system cannot take (a NUL byte,
too long, too deep, a name too long) are a refusal the agent reads, never a traceback.
"""

from __future__ import annotations

import subprocess

import pytest
from bad_input_kit import assert_refused, cli, listing, matches, time_bound
from conftest import needs_bwrap
from test_mcp_server import session

from pytest_granularity.core.tools import MICRO_TOOLS, call_tool
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.mcp.tool_session import served_root
from pytest_granularity.process.sandbox import select
from pytest_granularity.process.tool_context import ToolContext
from pytest_granularity.run.policies import FIXED_POLICIES

MICRO = FIXED_POLICIES["micro"]


@pytest.fixture
def repo(fix_add, tmp_path):
    """The fix-add files as a user's repository: a git checkout with a hook, a ``.venv`` and a ``venv``."""
    (tmp_path / "work").mkdir()
    root = Workspace.for_task(fix_add, parent=tmp_path / "work").root
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for venv in (".venv", "env"):
        (root / venv / "lib" / "site-packages").mkdir(parents=True)
        (root / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "metadata").symlink_to(".git")
    return root


def _protected(root):
    return {
        p: (root / p).read_bytes()
        for p in listing(root)
        if p.split("/")[0] in (".git", ".venv", "env") and (root / p).is_file()
    }


WRITES = {
    "hook": ("create_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch /tmp/owned\n"}),
    "fsmonitor": ("edit_file", {"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = touch x"}),
    "delete-head": ("delete_file", {"path": ".git/HEAD"}),
    "hook-through-a-link": ("create_file", {"path": "metadata/hooks/post-checkout", "content": "#!/bin/sh\n"}),
    "pth-in-dot-venv": ("create_file", {"path": ".venv/lib/site-packages/evil.pth", "content": "import os\n"}),
    "pth-in-a-venv-of-any-name": ("create_file", {"path": "env/lib/site-packages/evil.pth", "content": "import os\n"}),
    "pth-in-the-source": ("create_file", {"path": "calc/evil.pth", "content": "import os\n"}),
    "venv-config": ("delete_file", {"path": "env/pyvenv.cfg"}),
    "bytecode": ("create_file", {"path": "calc/__pycache__/ops.cpython-311.pyc", "content": "x"}),
}


@pytest.mark.parametrize("case", sorted(WRITES))
def test_a_write_to_what_is_not_source_is_refused_in_a_served_repository(repo, fix_add, tmp_path, case):
    tool, arguments = WRITES[case]
    served = session(repo, tmp_path, MICRO)
    served.call("start_task", {"prompt": fix_add.prompt})
    before, files = _protected(repo), listing(repo)
    with time_bound():
        reply = served.call(tool, arguments)
    assert _protected(repo) == before and listing(repo) == files, f"WROTE-OUTSIDE: {reply.text[:200]!r}"
    assert reply.is_error, f"ACCEPTED: {reply.text[:200]!r}"
    assert matches(reply.text.split("\n")[0], f"error: path '{arguments['path']}' is *"), f"UNCLEAR: {reply.text!r}"
    assert subprocess.run(["git", "-C", str(repo), "status"], capture_output=True).returncode == 0


OWNING_TEST = """\
import pathlib


def test_owned():
    for target in {targets!r}:
        try:
            with open(target, "a") as handle:
                handle.write("owned")
        except OSError:
            pass
    pathlib.Path({control!r}).write_text("written")
"""


@needs_bwrap
def test_code_the_agents_tests_run_cannot_write_git_or_a_venv_in_a_served_repository(repo, fix_add, tmp_path):
    """The tools refuse these paths, but bwrap bound the whole repository writable: a test the agent wrote and ran
    could add a hook or a ``.pth`` file, code that runs outside any sandbox at the user's next git or Python."""
    targets = [".git/hooks/pre-commit", ".git/config", ".venv/lib/site-packages/evil.pth", "env/evil.pth"]
    control = repo / "calc" / "written.txt"
    sandbox = select("bwrap")
    served = session(repo, tmp_path, MICRO, sandbox=sandbox)
    served.call("start_task", {"prompt": fix_add.prompt})
    test = OWNING_TEST.format(targets=[str(repo / t) for t in targets], control=str(control))
    assert not served.call("create_file", {"path": "tests/test_owned.py", "content": test}).is_error
    before = _protected(repo)
    try:
        with time_bound():
            reply = served.call("run_tests", {"paths": ["tests/test_owned.py"]})
    finally:
        sandbox.servers.stop()
    assert control.read_text() == "written", f"UNCLEAR: the test did not run: {reply.text[-300:]!r}"
    assert _protected(repo) == before, f"WROTE-OUTSIDE: {sorted(set(_protected(repo).items()) - set(before.items()))}"


@pytest.mark.parametrize("option", ["--junitxml={out}", "-o=junit_family=x", "--basetemp={dir}", "@{dir}/args"])
def test_an_option_where_a_test_path_is_expected_is_refused(fix_add, tmp_path, option):
    """Without a sandbox pytest would write ``--junitxml``'s file wherever it names (round three: /var/tmp)."""
    out = tmp_path / "x.xml"
    (tmp_path / "args").write_text(f"--junitxml={out}\n")
    value = option.format(out=out, dir=tmp_path)
    with Workspace.for_task(fix_add, parent=tmp_path) as ws, time_bound():
        seen = call_tool(MICRO_TOOLS["run_tests"], ToolContext(ws), {"paths": [value]})
    assert not out.exists(), "WROTE-OUTSIDE"
    assert not seen.ok, f"ACCEPTED: {seen.text[:200]!r}"
    expected = "error: '*' is not a test path: pytest would read it as an option, and none is taken"
    assert matches(seen.text, expected), f"UNCLEAR: {seen.text[:300]!r}"


UNUSABLE = {
    "nul-byte": ("calc/ops\0.py", "error: path 'calc/ops\\0.py' holds a NUL byte"),
    "ten-megabytes": ("a" * 10_000_000, "error: path 'aaaa*...' is 10000000 bytes long; *"),
    "three-thousand-folders": ("a/" * 3000 + "f.py", "error: path 'a/a/*...' is 6004 bytes long; *"),
    "deep-but-short": ("a/" * 300 + "f.py", "error: path 'a/a/*...' goes 301 folders deep, more than the 200 *"),
    "long-name": ("n" * 300 + ".py", "error: path 'nnn*...' has a name longer than the 255 bytes *"),
}


@pytest.mark.parametrize("tool", ["read_file", "create_file", "delete_file", "list_files", "search", "run_tests"])
@pytest.mark.parametrize("case", sorted(UNUSABLE))
def test_a_path_the_file_system_cannot_take_is_a_refusal_in_a_run(fix_add, tmp_path, tool, case):
    path, expected = UNUSABLE[case]
    arguments = {
        "read_file": {"path": path},
        "create_file": {"path": path, "content": "x"},
        "delete_file": {"path": path},
        "list_files": {"path": path},
        "search": {"pattern": "x", "path": path},
        "run_tests": {"paths": [path]},
    }[tool]
    with Workspace.for_task(fix_add, parent=tmp_path) as ws:
        before = ws.files()
        with time_bound():
            seen = call_tool(MICRO_TOOLS[tool], ToolContext(ws), arguments)
        assert ws.files() == before, "ACCEPTED"
    assert not seen.ok and "\n" not in seen.text and matches(seen.text, expected), f"UNCLEAR: {seen.text[:300]!r}"


@pytest.mark.parametrize("case", sorted(set(UNUSABLE) - {"ten-megabytes"}))  # over MCP: past the size limit
def test_a_path_the_file_system_cannot_take_is_a_refusal_over_mcp(repo, fix_add, tmp_path, case):
    path, expected = UNUSABLE[case]
    served = session(repo, tmp_path, MICRO)
    served.call("start_task", {"prompt": fix_add.prompt})
    with time_bound():
        reply = served.call("create_file", {"path": path, "content": "x"})
    assert reply.is_error and matches(reply.text.split("\n")[0], expected), f"UNCLEAR: {reply.text[:300]!r}"
    assert served.run is not None and not served.run.ended, "the task goes on"


# --- serve-mcp's own options: checked before anything is served ----------------------------------


@pytest.mark.parametrize(
    ("audit", "expected"),
    [
        ("/proc/version", "granularity serve-mcp: --audit: cannot write in /proc: *"),
        (
            "/dev/full",
            "granularity serve-mcp: --audit: /dev/full is a character device, not a regular file; give the path *",
        ),
    ],
)
def test_an_audit_log_that_cannot_be_written_is_refused_before_serving(repo, capsys, audit, expected):
    ended = cli(["serve-mcp", str(repo), "--sandbox", "none", "--audit", audit], capsys, seconds=20)
    assert_refused(ended, expected)


def test_a_copy_of_a_repository_with_an_absolute_symlink_is_refused_naming_it(repo, capsys):
    (repo / "calc" / "hosts").symlink_to("/etc/hosts")
    ended = cli(["serve-mcp", str(repo), "--copy", "--sandbox", "none"], capsys, seconds=20)
    assert_refused(
        ended, f"granularity serve-mcp: --copy: {repo}/calc/hosts: a symlink to the absolute path /etc/hosts; *"
    )


def test_a_copy_leaves_out_a_virtual_environment_with_its_absolute_links(repo):
    """Correct handling: a ``.venv`` links to its interpreter by an absolute path, and is never copied."""
    (repo / ".venv" / "python").symlink_to("/usr/bin/python3")
    with served_root(repo, copy=True) as root:
        assert (root / "calc" / "ops.py").is_file() and not (root / ".venv").exists()


def test_tasks_stats_on_a_folder_without_tasks_is_an_error(tmp_path, capsys):
    ended = cli(["tasks", "stats", str(tmp_path)], capsys)
    assert_refused(ended, f"granularity tasks stats: no {tmp_path}/**/task.yaml found")


def test_every_command_prints_an_error_the_same_way(tmp_path, capsys):
    """One handler: ``granularity COMMAND: message`` and exit 2, whichever command refused."""
    missing = tmp_path / "missing"
    assert_refused(cli(["explain", str(missing)], capsys), f"granularity explain: {missing}*")
    assert_refused(
        cli(["tasks", "check", str(tmp_path), "--jobs", "0"], capsys), "granularity tasks check: --jobs 0: *"
    )
