"""An agent host (opencode, Claude Code, Codex CLI) as the agent of a benchmark run.

The run is the executor's, as for every agent. On the run's first ``next_call`` the host is
started non-interactively with the task's prompt, in a scratch folder of its own (its working
directory, home and configuration: never the run's workspace), with our relay MCP server
(``mcp.relay``) as its only tool source and its own tools turned off (``hosts``), and its model
endpoint behind the metering proxy (``host_proxy``). Each tool call the host makes is the run's
next call; the executor's answer goes back to the host as the call's result, and the tools the
host is offered are the run's tools of the moment (micro tools, or macros and ``finish``, and
the one-way degradation). The reply's usage is what the proxy counted since the previous call.

How a host's run ends, classified:

- it calls ``finish``: the run ends as the executor decides (the verifier judges);
- it cannot be started, its model endpoint fails (unreachable, or a replay with no recording),
  or it stops without ever reaching its model: an infrastructure error;
- it exits (any status), or outlives its time limit (its own time: the time its model takes is not
  counted, so a recorded run ends where its replay does) and is stopped, after using its model, without
  calling ``finish``: its work is handed in as it stands (``finish``, with why in the reply's text),
  so the verifier judges it, as for an agent that stops; a host that called none of our tools is
  judged on the untouched workspace.

Every process the host started is in its own process group, which is killed at once when the
host is stopped, a few seconds after a finish call that ended the run, and in any case when the
next run's agent is built or the session ends.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.tools import FINISH
from ..core.transcript import Message, Reply, ToolCall
from ..process.sandbox import NO_SANDBOX, Sandbox
from . import AgentSetup, InfrastructureError
from .host_proxy import Exchange, MeteringProxy, ProxySettings, total
from .hosts import Host, Launch

RELAY_MODULE = "pytest_granularity.mcp.relay"
DEFAULT_HOST_TIMEOUT = 600.0
PROMPT = "{prompt}\n\nWork only through the granularity tools, and call finish when the task is done."
POLL_SECONDS = 0.1
TAIL_CHARS = 2000
OUT, ERR = "host.out", "host.err"
FINISH_GRACE_SECONDS = 3.0
"""After the host's ``finish``, how long the executor may take to ask again (a finish it refuses, or the switch
to micro tools, takes milliseconds). Past it the run has ended (its verifier runs), and the host, waiting on that
call, is stopped; the agent itself is released only later (a finished run's record holds it in a cycle)."""


@dataclass(frozen=True)
class HostSettings:
    """One session's host runs: which host, its executable, model, endpoint and recordings, time limit."""

    host: Host
    executable: str
    model: str
    upstream: str | None
    folder: Path | None = None
    mode: str = "off"
    session: str = ""
    timeout: float = DEFAULT_HOST_TIMEOUT
    """The host's own time, not its model's (``MeteringProxy.model_seconds``): each request has ``request_timeout``."""
    request_timeout: float = 300.0
    key_variable: str | None = None
    """The environment variable holding the model's key, named in the host's configuration where it asks."""
    cache: Path | None = None
    """The host's package cache (``XDG_CACHE_HOME``), shared by a session's runs; None: its scratch folder."""
    sandbox: Sandbox = NO_SANDBOX
    """Where the host process runs: with bwrap, it may write only its scratch folder and its package cache."""


@dataclass
class HostAgentFactory:
    """Builds each run's :class:`HostAgent`; whatever a run left running is stopped by :meth:`close`."""

    settings: HostSettings
    _runs: weakref.WeakSet[HostRun] = field(default_factory=weakref.WeakSet)

    def __call__(self, setup: AgentSetup) -> HostAgent:
        """The next run's agent. A process runs its items one at a time, so every earlier run has ended: its
        host (if a finish call left it waiting) is stopped now."""
        self.close()
        agent = HostAgent(setup, self.settings)
        self._runs.add(agent.run)
        return agent

    def close(self) -> None:
        for run in list(self._runs):
            run.close()


@dataclass
class _Call:
    """A tool call the host is waiting on: answered once, by the run's next ``next_call`` (or the end)."""

    name: str
    arguments: dict[str, Any]
    answer: dict[str, Any] = field(default_factory=dict)
    done: threading.Event = field(default_factory=threading.Event)

    def settle(self, text: str, is_error: bool = False, tools_changed: bool = False) -> None:
        self.answer = {"text": text, "is_error": is_error, "tools_changed": tools_changed}
        self.done.set()


class HostAgent:
    """The executor's agent for one run: each ``next_call`` is the host's next call to one of our tools."""

    def __init__(self, setup: AgentSetup, settings: HostSettings) -> None:
        self.settings = settings
        self.prompt = PROMPT.format(prompt=setup.task.prompt)
        self.run = HostRun(settings)
        self._pending: _Call | None = None
        self._mark = 0
        self._tools: list[str] = []
        self._watch: threading.Timer | None = None
        weakref.finalize(self, self.run.close)

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> Reply:
        run, names = self.run, [t["function"]["name"] for t in tools]
        if self._watch is not None:
            self._watch.cancel()
        run.offer(list(tools))
        if not run.started:
            run.start(self.prompt)
        elif self._pending is not None:
            result = "\n\n".join(m.content for m in messages[self._mark + 1 :])
            self._pending.settle(result, result.startswith("error:"), names != self._tools)
        self._pending, self._tools = None, names
        if run.ended is not None:
            return self._hand_in(run.ended)
        call = run.wait()
        if isinstance(call, str):
            return self._hand_in(call)
        self._pending, self._mark = call, len(messages)
        calls = (ToolCall(call.name, call.arguments),)
        if call.name == FINISH:
            self._watch = threading.Timer(FINISH_GRACE_SECONDS, run.stop, (f"{FINISH_GRACE_SECONDS:g} s after finish",))
            self._watch.daemon = True
            self._watch.start()
        return Reply(calls=calls, **run.bill(calls))

    def _hand_in(self, why: str) -> Reply:
        """The host has stopped without calling finish: its work is handed in as it stands."""
        return Reply(f"({why}; its work is handed in as it stands)", (ToolCall(FINISH),), **self.run.bill(()))


class HostRun:
    """Everything one run's host holds: its scratch folder, proxy, relay socket and process group."""

    def __init__(self, settings: HostSettings) -> None:
        self.settings = settings
        self.host = settings.host
        self.scratch = Path(tempfile.mkdtemp(prefix=f"granularity-host-{settings.host.name}-")).resolve()
        self.token = secrets.token_hex(16)
        self.started = False
        self.ended: str | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.calls: queue.Queue[_Call] = queue.Queue()
        self._offer: list[dict[str, Any]] = []
        self._waiting: list[_Call] = []
        self._lock = threading.Lock()
        self._closed = False
        self._deadline = 0.0
        self._output = 0
        self._kept: dict[str, str] = {}
        proxy = ProxySettings(
            settings.upstream,
            settings.folder,
            settings.mode,
            settings.session,
            settings.request_timeout,
            (str(self.scratch),),
        )
        self.proxy = MeteringProxy(proxy).__enter__()
        self._listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    def offer(self, tools: list[dict[str, Any]]) -> None:
        with self._lock:
            self._offer = tools

    def start(self, prompt: str) -> None:
        """Write the host's configuration into its scratch folder and start it in a process group of its own."""
        self.started = True
        port = self._listener.getsockname()[1]
        relay = (sys.executable, "-m", RELAY_MODULE, f"127.0.0.1:{port}", self.token)
        settings = self.settings
        launch = Launch(
            prompt,
            settings.model,
            self.proxy.base_url,
            relay,
            self.scratch,
            settings.key_variable,
            settings.request_timeout,
            settings.timeout,
        )
        for name, text in self.host.files(launch).items():
            (self.scratch / name).parent.mkdir(parents=True, exist_ok=True)
            (self.scratch / name).write_text(text, encoding="utf-8")
        writable = [self.scratch, *([self.settings.cache] if self.settings.cache else [])]
        for folder in writable:
            folder.mkdir(parents=True, exist_ok=True)  # a folder bound into the sandbox must exist
        argv = [self.settings.executable, *self.host.arguments(launch)]
        try:
            with open(self.scratch / OUT, "wb") as out, open(self.scratch / ERR, "wb") as err:
                self.process = subprocess.Popen(
                    self.settings.sandbox.command(argv, writable, host=True),
                    cwd=self.scratch,
                    env=self._environment(launch),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
        except OSError as exc:
            self.close()
            raise InfrastructureError(f"host {self.host.name} could not be started: {exc}") from None
        self._deadline = time.monotonic() + self.settings.timeout

    def wait(self) -> _Call | str:
        """The host's next tool call, or why it stopped without one; an infrastructure failure raises."""
        assert self.process is not None
        while True:
            self._check_model()
            try:
                return self.calls.get(timeout=POLL_SECONDS)
            except queue.Empty:
                pass
            status = self.process.poll()
            if status is None and time.monotonic() < self._deadline + self.proxy.model_seconds():
                continue
            if status is None:
                why = (
                    f"host {self.host.name} did not finish within {self.settings.timeout:g} s of its own time "
                    "(its model's not counted) and was stopped"
                )
            else:
                why = f"host {self.host.name} exited with status {status} without calling finish"
            self.close()
            self._check_model(why)
            self.ended = f"{why}{self._stderr_tail()}"
            return self.ended

    def bill(self, calls: tuple[ToolCall, ...]) -> dict[str, Any]:
        """A reply's usage and its entry in the run's ``model_calls``: in the chat shape the report reads, the
        calls the host made, the model requests behind them (path, recording key, source, usage) and the host's
        new output."""
        exchanges = self.proxy.take()
        request = {"host": self.host.name, "model_requests": _requests(exchanges)}
        made = [{"type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}} for c in calls]
        message = {"role": "assistant", "tool_calls": made, **self._new()}
        choice = {"message": message, "finish_reason": "tool_calls" if made else "stop"}
        return {"usage": total(exchanges), "exchange": {"request": request, "response": {"choices": [choice]}}}

    def stop(self, when: str) -> None:
        """The run ended at the host's finish call (the executor did not ask again): stop the host now."""
        if not self._closed:
            self.ended = f"host {self.host.name} was stopped {when}"
            self.close()

    def close(self) -> None:
        """Stop the host's process group, answer any call it waits on, and release the socket, proxy and scratch."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self.process is not None:
            _stop(self.process)
        for call in self._waiting:
            if not call.done.is_set():
                call.settle("error: the benchmark run has ended", is_error=True)
        self._listener.close()
        self.proxy.close()
        self._kept = {name: self._read(name) for name in (OUT, ERR)}
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _check_model(self, why: str | None = None) -> None:
        """Raise when the model endpoint failed, or (given ``why`` it stopped) the host never reached its model."""
        failed = [e for e in self.proxy.exchanges if e.source == "failed"]
        if failed:
            self.close()
            raise InfrastructureError(f"host {self.host.name}: {failed[0].error}")
        if why is not None and not self.proxy.exchanges:
            raise InfrastructureError(f"{why}, and never reached its model{self._stderr_tail()}")

    def _environment(self, launch: Launch) -> dict[str, str]:
        """The caller's environment, with the host's home, configuration, data, state and temporary folders in
        its scratch folder (so nothing of the user's own setup is read, and nothing of the run is kept)."""
        folders = {
            "HOME": "home",
            "XDG_CONFIG_HOME": "config",
            "XDG_DATA_HOME": "data",
            "XDG_STATE_HOME": "state",
            "TMPDIR": "tmp",
        }
        env = dict(os.environ)
        for variable, name in folders.items():
            (self.scratch / name).mkdir(exist_ok=True)
            env[variable] = str(self.scratch / name)
        env["XDG_CACHE_HOME"] = str(self.settings.cache or self.scratch / "cache")
        env["PWD"] = str(self.scratch)  # opencode takes its working directory from PWD, not from the process
        return env | self.host.env(launch)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        """Answer one relay's requests, one at a time, until it or the run goes away."""
        with connection, connection.makefile("rw", encoding="utf-8") as stream:
            try:
                for line in stream:
                    request = json.loads(line)
                    if request.get("token") != self.token:
                        return
                    stream.write(json.dumps(self._answer(request)) + "\n")
                    stream.flush()
            except OSError:
                return

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "tools":
            with self._lock:
                return {"tools": [] if self._closed else self._offer}
        call = _Call(str(request.get("name", "")), dict(request.get("arguments") or {}))
        with self._lock:
            if self._closed:
                return {"text": "error: the benchmark run has ended", "is_error": True}
            self._waiting.append(call)
        self.calls.put(call)
        call.done.wait()
        return call.answer

    def _read(self, name: str) -> str:
        """The host's output so far; after ``close``, what it was when the scratch folder was removed."""
        if name in self._kept:
            return self._kept[name]
        try:
            return (self.scratch / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def _new(self) -> dict[str, str]:
        """The host's output since the last reply (its last characters), kept in the run's record."""
        text = self._read(OUT)
        new, self._output = text[self._output :], len(text)
        return {"content": new[-TAIL_CHARS:]} if new else {}

    def _stderr_tail(self) -> str:
        tail = self._read(ERR).strip()[-TAIL_CHARS:]
        return f"; its last output: {tail}" if tail else ""


def _requests(exchanges: list[Exchange]) -> list[dict[str, Any]]:
    return [
        {"path": e.path, "key": e.key, "source": e.source, "status": e.status}
        | ({"usage": [e.usage.prompt, e.usage.completion, e.usage.cached]} if e.usage else {})
        for e in exchanges
    ]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the host's process group at once: a host told to terminate may first ask its model again (a
    request no run would be billed for), and nothing of its state is kept."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
