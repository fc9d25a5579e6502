"""A stand-in agent host for tests/test_host_agent.py: an MCP client that misbehaves on request.

    python tests/fake_host.py MODE CONFIG

CONFIG (written by the test's host table) names the MCP server command, the model's base URL
and a file to write this process's PID (and its child's) into. Every mode but ``dead`` first asks
its model once, as a host does. Then:

- ``good``: calls list_files, then finish (and waits, as a host does for an answer);
- ``again``: calls list_files, asks its model again, then calls finish;
- ``stale``: calls a tool the run does not offer, then finish;
- ``crash``: calls list_files, then exits with status 3;
- ``hang``: calls list_files, starts a child process, and sleeps;
- ``ignore``: exits with status 0 without calling any tool;
- ``litter``: writes files in its working directory, home and temporary folder, then calls finish;
- ``escape``: writes the file CONFIG names as ``outside`` (printing the error when it cannot), then calls finish;
- ``dead``: exits with status 1 before reaching its model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any


def ask_model(base_url: str, content: str = "go") -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": content}]}).encode()
    request = urllib.request.Request(f"{base_url}/chat/completions", body, {"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()


class Client:
    """The MCP server over stdio, spoken as JSON-RPC lines by hand (so this host needs no SDK)."""

    def __init__(self, command: list[str]) -> None:
        self.server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0
        info = {"name": "fake-host", "version": "0"}
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.server.stdin is not None
        self.server.stdin.write(json.dumps(message) + "\n")
        self.server.stdin.flush()

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.server.stdout is not None
        for line in self.server.stdout:
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                result: dict[str, Any] = answer["result"]
                return result
        raise SystemExit("the MCP server closed the connection")

    def call(self, name: str) -> dict[str, Any]:
        result = self.ask("tools/call", {"name": name, "arguments": {}})
        text = result["content"][0]["text"] if result.get("content") else ""
        return {"tool": name, "is_error": result.get("isError", False), "text": text}


def session(config: dict[str, Any], mode: str) -> None:
    client = Client(config["server"])
    Path(config["pids"]).write_text(json.dumps([os.getpid(), client.server.pid]))
    print(json.dumps({"tools": [t["name"] for t in client.ask("tools/list", {})["tools"]]}), flush=True)
    if mode == "stale":
        print(json.dumps(client.call("no_such_tool")), flush=True)
    if mode == "escape":
        try:
            Path(config["outside"]).write_text("escaped")
        except OSError as exc:
            print(json.dumps({"refused": str(exc)}), flush=True)
    if mode == "litter":
        folders = [Path.cwd(), Path.home(), Path(tempfile.gettempdir())]
        for folder in folders:
            (folder / "host-litter.txt").write_text("left behind")
        Path(config["pids"]).write_text(json.dumps([str(f) for f in folders]))
    else:
        print(json.dumps(client.call("list_files")), flush=True)
    if mode == "crash":
        os._exit(3)
    if mode == "again":
        ask_model(config["base_url"], "again")
    if mode == "hang":
        child = subprocess.Popen(["sleep", "600"])
        Path(config["pids"]).write_text(json.dumps([os.getpid(), child.pid, client.server.pid]))
        time.sleep(600)
    client.call("finish")


def main() -> int:
    mode, config = sys.argv[1], json.loads(Path(sys.argv[2]).read_text())
    Path(config["pids"]).write_text(json.dumps([os.getpid()]))
    if mode == "dead":
        print("fake host: cannot start", file=sys.stderr)
        return 1
    ask_model(config["base_url"])
    if mode == "ignore":
        return 0
    session(config, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
