"""The MCP server an agent host gets in a benchmark run: the run's own tools, relayed to its executor.

When a host (Claude Code, Codex CLI, opencode) is the agent of a benchmark run
(``--granularity-agent=host:NAME``), the run is the executor's, in the pytest process, as for
every agent: routing, the tools of the mode, macro contracts, the one-way degradation, the step
limit and the verifier. The host starts this server as its only tool source; each listing and
each call is passed over a local socket to the run's agent (``agents.host_agent``), which hands
the call to the executor and sends back what the executor answered. So the host sees exactly the
tools the run offers now, and ``serve-mcp``'s wire code (``server.build_server``) serves them.

Run as ``python -m pytest_granularity.mcp.relay ADDRESS TOKEN``: ADDRESS is the agent's
``127.0.0.1:PORT``, TOKEN the secret each request carries, so no other local process can drive
the run. One JSON object per line each way.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from typing import Any

from .server import serve_stdio
from .tool_session import ToolReply

INSTRUCTIONS = (
    "Granularity control: the task is already started. The tools offered are the ones the benchmark run allows "
    "now: micro tools, or macro skills and finish. When a macro fails, the tools may switch to micro tools in the "
    "same workspace, one way: use the tools the last result lists. Call finish when the task is done."
)

RELIST_SECONDS = 5.0
"""How long a call that changed the tools waits for the host to list them again (``server._Listings``): a
listing takes milliseconds, but a recording session shares 2 cores with the model server."""


class Relay:
    """A served session whose listings and calls are answered by the run's agent over ``connection``."""

    def __init__(self, connection: socket.socket, token: str) -> None:
        self.token = token
        self._connection = connection
        self._lines = connection.makefile("r", encoding="utf-8")
        self._lock = threading.Lock()

    def tools(self) -> list[dict[str, Any]]:
        answer = self._ask({"op": "tools"})
        return [_mcp_tool(schema) for schema in answer.get("tools", [])]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolReply:
        answer = self._ask({"op": "call", "name": name, "arguments": arguments})
        return ToolReply(str(answer.get("text", "")), bool(answer.get("is_error")), bool(answer.get("tools_changed")))

    def close(self) -> None:
        self._connection.close()

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request and its answer; a run that has ended answers every request with an error."""
        with self._lock:
            try:
                self._connection.sendall((json.dumps({"token": self.token, **request}) + "\n").encode())
                line = self._lines.readline()
            except OSError:
                line = ""
        if not line:
            return {"tools": [], "text": "error: the benchmark run has ended", "is_error": True}
        answer: dict[str, Any] = json.loads(line)
        return answer


def _mcp_tool(schema: dict[str, Any]) -> dict[str, Any]:
    """An MCP tool definition from the executor's function schema."""
    function = schema["function"]
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "inputSchema": function.get("parameters") or {"type": "object"},
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m pytest_granularity.mcp.relay 127.0.0.1:PORT TOKEN", file=sys.stderr)
        return 2
    host, _, port = argv[0].rpartition(":")
    relay = Relay(socket.create_connection((host, int(port))), argv[1])
    serve_stdio(relay, relay.close, INSTRUCTIONS, RELIST_SECONDS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
