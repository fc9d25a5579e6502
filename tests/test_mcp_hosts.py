"""The host configurations in docs/mcp.md, as printed: each is parsed and the command it names is started.

Claude Code (``claude mcp add`` and ``.mcp.json``), Cursor (``.cursor/mcp.json``), VS Code
(``.vscode/mcp.json``) and Codex CLI (``config.toml``): each block's command and arguments, with a
test repository where the page says ``/path/to/repo`` or ``${workspaceFolder}``, start a server
that answers ``tools/list`` over stdio. A configuration that the page gets wrong (a key the host
does not read, an option the server refuses) fails here.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
from conftest import REPO  # noqa: E402

from pytest_granularity.core.workspace import Workspace  # noqa: E402
from pytest_granularity.mcp.export import START_TASK  # noqa: E402

PAGE = (REPO / "docs" / "mcp.md").read_text()
BLOCK = re.compile(
    r"\*\*(?P<host>[^*\n]+)\*\*, (?P<caption>(?:(?!\n\n).)*?):\n\n```(?P<language>\w+)\n(?P<body>.*?)```", re.S
)
PLACEHOLDERS = ("/path/to/repo", "${workspaceFolder}")
GRANULARITY = str(Path(sys.executable).parent / "granularity")


def blocks() -> dict[str, tuple[str, str]]:
    """Per host and file (``Claude Code: .mcp.json``), the block's language and text."""
    found = {}
    for match in BLOCK.finditer(PAGE):
        where = "shell" if match["caption"].startswith("from a shell") else match["caption"].split("`")[1]
        found[f"{match['host']}: {where}"] = (match["language"], match["body"])
    return found


def claude_commands(body: str) -> list[list[str]]:
    commands = []
    for line in body.strip().splitlines():
        words = shlex.split(line)
        assert words[:3] == ["claude", "mcp", "add"] and "--" in words, line
        commands.append(words[words.index("--") + 1 :])
    return commands


def json_servers(body: str, key: str, typed: bool) -> list[list[str]]:
    servers = json.loads(body)[key]
    assert list(servers) == ["granularity"]
    entry = servers["granularity"]
    assert set(entry) == ({"type", "command", "args"} if typed else {"command", "args"})
    assert entry.get("type", "stdio") == "stdio"
    return [[entry["command"], *entry["args"]]]


def codex_servers(body: str) -> list[list[str]]:
    entry = tomllib.loads(body)["mcp_servers"]["granularity"]
    assert set(entry) == {"command", "args"}
    return [[entry["command"], *entry["args"]]]


PARSERS = {
    "Claude Code: shell": ("bash", claude_commands),
    "Claude Code: .mcp.json": ("json", lambda body: json_servers(body, "mcpServers", typed=False)),
    "Cursor: .cursor/mcp.json": ("json", lambda body: json_servers(body, "mcpServers", typed=False)),
    "VS Code: .vscode/mcp.json": ("json", lambda body: json_servers(body, "servers", typed=True)),
    "Codex CLI: ~/.codex/config.toml": ("toml", codex_servers),
}


def test_the_page_shows_every_host_once():
    assert sorted(blocks()) == sorted(PARSERS)


def listed_tools(command: list[str], repo: Path) -> list[str]:
    program, *args = (repo.as_posix() if word in PLACEHOLDERS else word for word in command)
    assert program == "granularity"
    server = mcp.StdioServerParameters(command=GRANULARITY, args=[*args, "--audit", str(repo.parent / "audit.jsonl")])

    async def listing():
        async with mcp.Client(server, mode="legacy") as client:
            return [t.name for t in (await client.list_tools()).tools]

    return anyio.run(listing)


@pytest.mark.parametrize("host", sorted(PARSERS))
def test_each_hosts_configuration_starts_a_server_that_answers(host, fix_add, tmp_path):
    repo = Workspace.for_task(fix_add, parent=tmp_path).root
    language, body = blocks()[host]
    expected, parse = PARSERS[host]
    assert language == expected
    commands = parse(body)
    assert commands and all(any(p in c for p in PLACEHOLDERS) for c in commands)
    for command in commands:
        assert listed_tools(command, repo) == [START_TASK]
