"""The agent hosts a benchmark run can start, each a small declared table.

A row says how to start the host non-interactively with the task's prompt, which configuration
file it reads (written into the host's own scratch folder, never the run's workspace), how its
own tools (shell, file edits, web) are turned off so that our MCP server is its only tool source,
which wire format its model speaks (the proxy counts that format's usage fields), and where its
model endpoint is when none is given. Tokens always come from the metering proxy
(``host_proxy``): the provider's own fields of every reply the host received.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .wire_usage import CHAT, MESSAGES, RESPONSES

SERVER = "granularity"
"""The MCP server's name in every host's configuration (hosts prefix our tools' names with it)."""


@dataclass(frozen=True)
class Launch:
    """What one run's host is started with: the prompt, the model, the proxy's base URL, the MCP server's
    command, the host's scratch folder (its working directory and home), the key's variable, if any, and the
    harness's limits on one model request and on the host's own time."""

    prompt: str
    model: str
    base_url: str
    server: tuple[str, ...]
    scratch: Path
    key_variable: str | None
    request_timeout: float
    host_timeout: float


ANSWER_MARGIN_SECONDS = 30.0
"""How much longer than the proxy's limit a host waits for a model reply: the proxy answers (an error) at its
limit, and a host that gave up first would ask again, a request the replay never sees."""


def _milliseconds(seconds: float) -> int:
    return round(seconds * 1000)


@dataclass(frozen=True)
class Host:
    name: str
    executable: str
    wire: str
    upstream: str | None
    """The model endpoint when ``--granularity-base-url`` is not given (None: it must be given)."""
    key_variable: str | None
    """The environment variable holding the key, passed to the host (the proxy forwards its header)."""
    tools_off: str
    arguments: Callable[[Launch], list[str]]
    """The command line after the executable."""
    files: Callable[[Launch], dict[str, str]]
    """Configuration files by path relative to the scratch folder."""
    env: Callable[[Launch], dict[str, str]]


OPENCODE_BUILTIN_TOOLS = (
    "bash",
    "edit",
    "write",
    "read",
    "glob",
    "grep",
    "list",
    "patch",
    "skill",
    "task",
    "todowrite",
    "todoread",
    "webfetch",
    "websearch",
    "codesearch",
    "lsp",
    "question",
)


def _opencode_config(launch: Launch) -> dict[str, str]:
    key = f"{{env:{launch.key_variable}}}" if launch.key_variable else "none"
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": f"{SERVER}/{launch.model}",
        "small_model": f"{SERVER}/{launch.model}",
        "provider": {
            SERVER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "granularity metering proxy",
                "options": {
                    "baseURL": launch.base_url,
                    "apiKey": key,
                    "headerTimeout": _milliseconds(launch.request_timeout + ANSWER_MARGIN_SECONDS),
                    "chunkTimeout": _milliseconds(launch.request_timeout + ANSWER_MARGIN_SECONDS),
                },
                "models": {launch.model: {}},
            }
        },
        "mcp": {
            SERVER: {
                "type": "local",
                "command": list(launch.server),
                "enabled": True,
                "timeout": _milliseconds(launch.host_timeout),
            }
        },
        "tools": {"*": False, **dict.fromkeys(OPENCODE_BUILTIN_TOOLS, False), f"{SERVER}_*": True},
        "permission": {f"{SERVER}_*": "allow"},
    }
    return {"opencode.json": json.dumps(config, indent=1)}


OPENCODE = Host(
    name="opencode",
    executable="opencode",
    wire=CHAT,
    upstream=None,
    key_variable=None,
    tools_off='"tools": {"*": false, ..., "granularity_*": true} in opencode.json (every built-in named too)',
    arguments=lambda launch: ["run", "--format", "json", "--title", "granularity benchmark item", launch.prompt],
    files=_opencode_config,
    env=lambda launch: {
        "OPENCODE_CONFIG": str(launch.scratch / "opencode.json"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    },
)


def _claude_config(launch: Launch) -> dict[str, str]:
    server = {"command": launch.server[0], "args": list(launch.server[1:])}
    return {"mcp.json": json.dumps({"mcpServers": {SERVER: server}}, indent=1)}


CLAUDE = Host(
    name="claude",
    executable="claude",
    wire=MESSAGES,
    upstream="https://api.anthropic.com",
    key_variable="ANTHROPIC_API_KEY",
    tools_off='--tools "" (no built-in tool) with --strict-mcp-config (no MCP server but ours)',
    arguments=lambda launch: [
        "-p",
        launch.prompt,
        "--model",
        launch.model,
        "--tools",
        "",
        "--strict-mcp-config",
        "--mcp-config",
        str(launch.scratch / "mcp.json"),
        "--allowedTools",
        f"mcp__{SERVER}",
        "--output-format",
        "stream-json",
        "--verbose",
    ],
    files=_claude_config,
    env=lambda launch: {
        "ANTHROPIC_BASE_URL": launch.base_url,
        "CLAUDE_CONFIG_DIR": str(launch.scratch / ".claude"),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    },
)


def _codex_config(launch: Launch) -> dict[str, str]:
    command, *args = launch.server
    lines = [
        f"model = {json.dumps(launch.model)}",
        f'model_provider = "{SERVER}"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        'web_search = "disabled"',
        "",
        f"[model_providers.{SERVER}]",
        'name = "granularity metering proxy"',
        f"base_url = {json.dumps(launch.base_url)}",
        'wire_api = "responses"',
        *([f"env_key = {json.dumps(launch.key_variable)}"] if launch.key_variable else []),
        "",
        "[features]",
        "shell_tool = false",
        "",
        "[agents]",
        "enabled = false",
        "",
        f"[mcp_servers.{SERVER}]",
        f"command = {json.dumps(command)}",
        f"args = {json.dumps(args)}",
        "required = true",
        "startup_timeout_sec = 120",
        'default_tools_approval_mode = "approve"',
    ]
    return {"codex/config.toml": "\n".join(lines) + "\n"}


CODEX = Host(
    name="codex",
    executable="codex",
    wire=RESPONSES,
    upstream="https://api.openai.com/v1",
    key_variable="OPENAI_API_KEY",
    tools_off=(
        '[features] shell_tool = false; [agents] enabled = false; web_search = "disabled" '
        "(view_image, goals and MCP resource tools remain)"
    ),
    arguments=lambda launch: ["exec", "--skip-git-repo-check", "--json", launch.prompt],
    files=_codex_config,
    env=lambda launch: {"CODEX_HOME": str(launch.scratch / "codex")},
)

HOSTS = {host.name: host for host in (OPENCODE, CLAUDE, CODEX)}
