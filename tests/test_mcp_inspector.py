"""A client no one here wrote: the MCP Inspector (npm ``@modelcontextprotocol/inspector`` 2.12.0) drives serve-mcp.

Its one-shot CLI (``mcp-inspector --cli``) starts the server for each call, so it lists the tools;
its connection CLI from the same package (``mcpdo``) keeps one server running across commands,
so it drives a whole task: start it, call a macro that does not fit, see it fail and the tools
switch to micro ones, edit, finish, and the verifier accept. Every step is asserted on the JSON
the inspector prints. The inspector's daemon is a private one, and its home a temporary folder of the test's.

``.ci/run`` installs the inspector (``npm install -g --prefix .venv``, so it lands in the
virtualenv's ``bin``); where node or the inspector is missing, the test skips saying which.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pytest_granularity.core.audit import audit_records
from pytest_granularity.core.tools import FINISH, MICRO_TOOLS
from pytest_granularity.core.workspace import Workspace, read_tree
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.mcp.export import START_TASK

VERSION = "2.12.0"
BIN = Path(sys.executable).parent
INSPECTOR, MCPDO = (shutil.which(name) or shutil.which(name, path=str(BIN)) for name in ("mcp-inspector", "mcpdo"))
pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the MCP Inspector needs it)"),
    pytest.mark.skipif(
        None in (INSPECTOR, MCPDO),
        reason=f"the MCP Inspector is not installed: npm install -g --prefix .venv @modelcontextprotocol/inspector@{VERSION}",
    ),
]
MISFIT = {"files": ["calc/ops.py"], "old": "SCALE = 3", "new": "SCALE = 1"}
EDIT = {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"}
TOOL_IS_ERROR = 5
"""mcpdo's exit status when the tool answered ``isError: true``."""
EXPORT = re.compile(r"^export (\w+)='([^']*)'$", re.M)


class Inspector:
    """The inspector's commands with a home, catalog and daemon of their own; each answer parsed from its JSON."""

    def __init__(self, home: Path) -> None:
        self.env = {
            **os.environ,
            "HOME": str(home),
            "MCP_CATALOG_PATH": str(home / "catalog.json"),
            "MCP_INSPECTOR_SECRET_STORE": "file",
            "TMPDIR": str(home),  # the private daemon's folder and socket
        }
        self.env.update(EXPORT.findall(self.run(MCPDO, "private")))
        self.steps: list[tuple[list[str], dict]] = []
        self.connection = ""
        self.status = 0

    def connect(self, command: list[str]) -> dict:
        """Start the server once, as a named connection that every later command reaches."""
        connected = self.json(MCPDO, "--format", "json", "connect", "--", *command)
        self.connection = connected["name"]
        return connected

    def run(self, *command: str | None, allowed: tuple[int, ...] = (0,)) -> str:
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120)
        assert done.returncode in allowed, f"{command}: {done.stdout}{done.stderr}"
        self.status = done.returncode
        return done.stdout

    def json(self, *command: str | None, allowed: tuple[int, ...] = (0,)) -> dict:
        answer = json.loads(self.run(*command, allowed=allowed))
        self.steps.append(([c for c in command[1:] if c], answer))
        return answer

    def call(self, tool: str, arguments: dict) -> tuple[bool, str]:
        answer = self.json(
            MCPDO,
            "--format",
            "json",
            "--connection",
            self.connection,
            "tools/call",
            tool,
            "--tool-args-json",
            json.dumps(arguments),
            allowed=(0, TOOL_IS_ERROR),
        )
        assert (self.status == TOOL_IS_ERROR) == answer["isError"]
        (content,) = answer["content"]
        return answer["isError"], content["text"]

    def tools(self) -> list[str]:
        return [
            t["name"]
            for t in self.json(MCPDO, "--format", "json", "--connection", self.connection, "tools/list")["tools"]
        ]


@pytest.fixture
def repo(fix_add, tmp_path) -> Path:
    return Workspace.for_task(fix_add, parent=tmp_path).root


@pytest.fixture
def inspector():
    """The inspector with a home of its own, short enough for its daemon's socket path (at most 107 bytes,
    which a pytest-xdist tmp_path can pass), removed at the end with the daemon stopped."""
    with tempfile.TemporaryDirectory(prefix="granularity-inspector-") as home:
        client = Inspector(Path(home))
        yield client
        client.run(MCPDO, "daemon", "stop")


def serve(repo: Path, *options: str) -> list[str]:
    return [str(BIN / "granularity"), "serve-mcp", str(repo), "--copy", *options]


def test_the_inspector_is_the_pinned_release(inspector):
    assert inspector.run(INSPECTOR, "--cli", "--version").strip().endswith(VERSION)


def test_the_one_shot_cli_lists_the_tools_offered_between_tasks(inspector, repo):
    listing = inspector.json(INSPECTOR, "--cli", "--format", "json", "-q", *serve(repo), "--method", "tools/list")
    (tool,) = listing["result"]["tools"]
    assert tool["name"] == START_TASK and tool["inputSchema"]["required"] == ["prompt"]
    assert tool["annotations"]["readOnlyHint"] is True


def test_a_task_driven_by_the_inspector_degrades_finishes_and_is_verified(inspector, repo, tmp_path, fix_add):
    audit = tmp_path / "audit.jsonl"
    before = read_tree(repo)
    command = serve(repo, "--policy", "hybrid", "--audit", str(audit), "--verify-tests", "tests/test_ops.py")
    connected = inspector.connect(command)
    assert connected["serverIdentity"] == " ".join(command) and connected["protocolEra"] == "legacy"

    assert inspector.tools() == [START_TASK]
    is_error, text = inspector.call(START_TASK, {"prompt": fix_add.prompt})
    assert not is_error and "starts in macro mode (policy hybrid)" in text
    assert inspector.tools() == [*(m.name for m in MacroRegistry.load()), FINISH]

    is_error, text = inspector.call("replace_and_verify", MISFIT)
    assert is_error and text.startswith("replace_and_verify failed (precondition_mismatch)")
    assert text.endswith("tools offered now: " + ", ".join(MICRO_TOOLS))
    assert inspector.tools() == list(MICRO_TOOLS)

    assert inspector.call("edit_file", EDIT) == (False, "edited calc/ops.py")
    is_error, text = inspector.call(FINISH, {"summary": "SCALE fixed"})
    assert not is_error and "finished. 2 calls (1 to macros), degraded to micro tools" in text
    assert "Verifier (tests tests/test_ops.py): passed." in text
    assert inspector.tools() == [START_TASK]

    inspector.run(MCPDO, "disconnect", inspector.connection)
    (record,) = audit_records(audit)
    assert (record.outcome, record.degraded, record.modified) == ("passed", True, ["calc/ops.py"])
    assert read_tree(repo) == before  # --copy: the inspector's edits never reached the repository
    if os.environ.get("GRANULARITY_INSPECTOR_TRANSCRIPT"):
        Path(os.environ["GRANULARITY_INSPECTOR_TRANSCRIPT"]).write_text(json.dumps(inspector.steps, indent=1))
