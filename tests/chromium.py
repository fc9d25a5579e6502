"""Drive a headless Chromium through the DevTools protocol over a pipe (no websocket library, no driver).

With ``--remote-debugging-pipe`` Chromium reads protocol messages from file descriptor 3 and
writes its answers to 4, each one JSON text ended by a NUL byte. That is all a test needs to open
a page, click like a person and take a screenshot, with nothing but the OS's Chromium installed
(``scripts/install-browser.sh``).
"""

from __future__ import annotations

import base64
import dataclasses
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_granularity.core.result import RunResult

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
)
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Debian's /usr/bin/chromium is a shell launcher that loses the pipe's descriptors: use the binary.
BINARIES = ("/usr/lib/chromium/chromium",)
TIMEOUT = 60.0
FIRST_FRAME = "new Promise(done => requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0)))"
"""Milliseconds from navigation start to the first frame after the load event: the summary and the run rows
the page lists laid out and painted, the page usable."""


def find_chromium() -> str | None:
    """``$GRANULARITY_CHROMIUM``, else the OS's Chromium binary, else one on the PATH."""
    chosen = os.environ.get("GRANULARITY_CHROMIUM")
    if chosen:
        return chosen
    found = [b for b in BINARIES if os.access(b, os.X_OK)] + [p for p in map(shutil.which, NAMES) if p]
    return found[0] if found else None


def _high_pipe() -> tuple[int, int]:
    """A close-on-exec pipe on descriptors of 10 and up, so moving its ends to 3 and 4 cannot overwrite one another."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends[0], ends[1]


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page; ``call`` sends a command to the page and waits for its answer."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="granularity-chromium-")
        to_browser, self._write = _high_pipe()
        self._read, from_browser = _high_pipe()
        command = [
            executable,
            *FLAGS,
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ]

        def onto_3_and_4() -> None:
            # in the child, before exec: our pipe ends become Chromium's descriptors 3 and 4
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        # every other descriptor is close-on-exec (PEP 446), so nothing else leaks into the browser
        self.process = subprocess.Popen(
            command, preexec_fn=onto_3_and_4, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._send(method, params, self.session)

    def _send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def _receive(self, deadline: float | None = None) -> dict[str, Any]:
        deadline = deadline or time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("no answer from Chromium in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        for index, seen in enumerate(self.events):
            if seen.get("method") == event:
                return self.events.pop(index)
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._receive(deadline)
            if message.get("method") == event:
                return message
            self.events.append(message)

    def requests(self) -> list[str]:
        """The URLs the page asked for since it was opened (``Network.enable`` first): its file, data URIs, and
        anything it tried to fetch."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def open(self, path: Path) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the first element matching ``selector``."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + Math.min(r.width / 2, 40), r.y + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        self.settle()

    def settle(self) -> None:
        """Wait until the page has handled what was queued (a <details> toggle event comes a task later)."""
        self.evaluate("new Promise(done => setTimeout(() => requestAnimationFrame(() => done(true)), 0))")

    def choose(self, selector: str, value: str) -> None:
        """Pick an option of a <select> with the keyboard, as a person would: focus it and type the value."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        for char in value:
            self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": char, "text": char})
            self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": char})
        self.settle()

    def screenshot(self, path: Path, selector: str | None = None, max_height: int = 2400) -> Path:
        """The viewport, or the whole of the first element matching ``selector`` (up to ``max_height`` pixels)."""
        params: dict[str, Any] = {"format": "png"}
        if selector:
            box = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                " return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()"
            )
            x, y, width, height = box
            params.update(
                captureBeyondViewport=True,
                clip={"x": x, "y": y, "width": width, "height": min(height, max_height), "scale": 1},
            )
        data = self.call("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def console_messages(self) -> list[str]:
        return [e["params"]["entry"]["text"] for e in self.events if e.get("method") == "Log.entryAdded"] + [
            json.dumps(e["params"]) for e in self.events if e.get("method") == "Runtime.exceptionThrown"
        ]


def replicate(records: list[RunResult], count: int) -> list[RunResult]:
    """``count`` runs made of copies of ``records``, each copy's task and texts its own (nothing shared between
    copies, so the page is as large as ``count`` distinct runs would make it)."""
    copies = []
    for index in range(count):
        record, copy = records[index % len(records)], index // len(records)
        transcript = [{**m, "content": f"{m.get('content') or ''} [copy {copy}]"} for m in record.transcript]
        copies.append(dataclasses.replace(record, task=f"{record.task}~{copy}", transcript=transcript))
    return copies
