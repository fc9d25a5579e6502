"""The metering proxy between a host and its model: counts the provider's fields, records, replays, streams."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pytest_granularity.agents.host_proxy import MeteringProxy, ProxySettings
from pytest_granularity.agents.stub_server import Answer, ChatServer, completion, tool_message
from pytest_granularity.core.transcript import Usage

SSE = {"Content-Type": "text/event-stream"}


def _stream(*events: dict[str, Any], done: bool = False) -> bytes:
    text = "".join(f"event: {e.get('type', 'chunk')}\ndata: {json.dumps(e)}\n\n" for e in events)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


CHUNK = {"id": "c1", "object": "chat.completion.chunk", "model": "m"}
CANNED: dict[str, tuple[str, Answer, Usage]] = {
    "chat-json": (
        "/v1/chat/completions",
        (200, {}, completion(tool_message(("read_file", '{"path": "a.py"}')), Usage(120, 7, 100))),
        Usage(120, 7, 100),
    ),
    "chat-sse": (
        "/v1/chat/completions",
        (
            200,
            SSE,
            _stream(
                CHUNK | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]},
                CHUNK | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                CHUNK | {"choices": [], "usage": {"prompt_tokens": 130, "completion_tokens": 9}},
                done=True,
            ),
        ),
        Usage(130, 9, None),
    ),
    "responses-json": (
        "/v1/responses",
        (
            200,
            {},
            {
                "id": "resp_1",
                "object": "response",
                "output": [{"type": "message", "content": [{"type": "output_text", "text": "ok"}]}],
                "usage": {"input_tokens": 210, "output_tokens": 12, "input_tokens_details": {"cached_tokens": 64}},
            },
        ),
        Usage(210, 12, 64),
    ),
    "responses-sse": (
        "/v1/responses",
        (
            200,
            SSE,
            _stream(
                {"type": "response.created", "response": {"id": "resp_2", "usage": None}},
                {"type": "response.output_text.delta", "delta": "ok"},
                {
                    "type": "response.completed",
                    "response": {"id": "resp_2", "usage": {"input_tokens": 220, "output_tokens": 15}},
                },
            ),
        ),
        Usage(220, 15, None),
    ),
    "messages-json": (
        "/v1/messages",
        (
            200,
            {},
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {
                    "input_tokens": 30,
                    "cache_creation_input_tokens": 200,
                    "cache_read_input_tokens": 1000,
                    "output_tokens": 40,
                },
            },
        ),
        Usage(1230, 40, 1000),
    ),
    "messages-sse": (
        "/v1/messages",
        (
            200,
            SSE,
            _stream(
                {
                    "type": "message_start",
                    "message": {"id": "msg_2", "usage": {"input_tokens": 25, "cache_read_input_tokens": 500}},
                },
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 33}},
                {"type": "message_stop"},
            ),
        ),
        Usage(525, 33, 500),
    ),
}


def _respond(body: dict[str, Any]) -> Answer:
    return CANNED[body["model"]][1]


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read()


def _origin(url: str) -> str:
    return url.removesuffix("/v1")


def test_counts_equal_the_provider_fields_of_every_format_recorded_and_replayed(tmp_path: Path) -> None:
    folder = tmp_path / "recordings"
    with ChatServer(_respond) as upstream:
        with MeteringProxy(ProxySettings(upstream.base_url, folder, "auto", "s1")) as proxy:
            live = {
                name: _post(_origin(proxy.base_url) + path, {"model": name}) for name, (path, _, _) in CANNED.items()
            }
            counted = {name: e.usage for name, e in zip(CANNED, proxy.exchanges, strict=True)}
        asked = len(upstream.requests)
    assert counted == {name: usage for name, (_, _, usage) in CANNED.items()}
    assert all(e.source == "upstream" for e in proxy.exchanges)
    recordings = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    assert len(recordings) == len(CANNED) == asked
    for name, (_, (_, _, payload), _) in CANNED.items():
        recorded = next(r["response"] for r in recordings if r["request"]["body"]["model"] == name)
        assert recorded["body"].encode() == (payload if isinstance(payload, bytes) else json.dumps(payload).encode())
        assert live[name][2] == recorded["body"].encode()

    with MeteringProxy(ProxySettings(None, folder, "replay", "s2")) as replay:
        replayed = {
            name: _post(_origin(replay.base_url) + path, {"model": name}) for name, (path, _, _) in CANNED.items()
        }
        assert {name: e.usage for name, e in zip(CANNED, replay.exchanges, strict=True)} == counted
        assert all(e.source == "recording" for e in replay.exchanges)
    assert replayed == live


def test_a_replay_miss_is_a_failed_exchange_and_a_bad_gateway(tmp_path: Path) -> None:
    with MeteringProxy(ProxySettings(None, tmp_path, "replay", "s")) as proxy:
        status, _, body = _post(proxy.base_url + "/chat/completions", {"model": "chat-json"})
    assert status == 502
    assert "no recording of this request" in json.loads(body)["error"]["message"]
    [exchange] = proxy.exchanges
    assert (exchange.source, exchange.usage) == ("failed", None)
    assert not list(tmp_path.iterdir())


def test_a_replay_of_another_conversation_misses_and_names_the_recording_and_the_field(tmp_path: Path) -> None:
    recorded = {"model": "chat-json", "messages": [{"role": "user", "content": "fix the slug length"}]}
    asked = {"model": "chat-json", "messages": [{"role": "user", "content": "fix the GBP rate"}]}
    with ChatServer(_respond) as upstream, MeteringProxy(ProxySettings(upstream.base_url, tmp_path, "record")) as proxy:
        _post(proxy.base_url + "/chat/completions", recorded)
    [recording] = tmp_path.glob("*.json")
    with MeteringProxy(ProxySettings(None, tmp_path, "replay")) as replay:
        status, _, body = _post(replay.base_url + "/chat/completions", asked)
    assert status == 502
    assert json.loads(body)["error"]["message"].endswith(
        f"nearest recording {recording.stem} (the same first 0 messages) differs in: body.messages[0].content: "
        "parts at character 8: 'fix the slug length' in the recording, 'fix the GBP rate' asked"
    )


def test_an_unreachable_upstream_is_a_failed_exchange(tmp_path: Path) -> None:
    with ChatServer(_respond) as gone:
        url = gone.base_url
    with MeteringProxy(ProxySettings(url)) as proxy:
        status, _, body = _post(proxy.base_url + "/chat/completions", {"model": "chat-json"})
    assert status == 502 and "could not be reached" in json.loads(body)["error"]["message"]
    assert proxy.exchanges[0].source == "failed"


def test_an_error_status_is_passed_through_not_recorded_not_counted(tmp_path: Path) -> None:
    def refuse(body: dict[str, Any]) -> Answer:
        return 429, {}, {"error": {"message": "slow down"}}

    with ChatServer(refuse) as upstream, MeteringProxy(ProxySettings(upstream.base_url, tmp_path, "auto")) as proxy:
        status, _, body = _post(proxy.base_url + "/chat/completions", {"model": "x"})
    assert (status, json.loads(body)) == (429, {"error": {"message": "slow down"}})
    assert proxy.exchanges[0].usage is None
    assert not list(tmp_path.glob("*.json"))


def test_volatile_fields_do_not_change_the_key_and_are_sent_unchanged(tmp_path: Path) -> None:
    scratch = str(tmp_path / "host-1")
    first = {
        "model": "chat-json",
        "metadata": {"user_id": "session-a"},
        "client_metadata": {"session_id": "a", "turn_started_at_unix_ms": 1},
        "messages": [
            {"role": "system", "id": "msg_a", "content": f"cwd {scratch}/x. Today's date: Thu Dec 03 2026 (2026-12-03)"}
        ],
    }
    second = {
        "model": "chat-json",
        "metadata": {"user_id": "session-b"},
        "client_metadata": {"session_id": "b", "turn_started_at_unix_ms": 2},
        "messages": [
            {"role": "system", "id": "msg_b", "content": f"cwd {scratch}/x. Today's date: Fri Jan 08 2027 (2027-01-08)"}
        ],
    }
    with ChatServer(_respond) as upstream:
        with MeteringProxy(ProxySettings(upstream.base_url, tmp_path / "r", "auto", "s", scratch=(scratch,))) as proxy:
            _post(proxy.base_url + "/chat/completions", first)
            _post(proxy.base_url + "/chat/completions", second)
        assert upstream.requests == [first]
    assert [e.source for e in proxy.exchanges] == ["upstream", "recording"]
    assert proxy.exchanges[0].key == proxy.exchanges[1].key
    [recording] = (tmp_path / "r").glob("*.json")
    assert "<scratch>/x" in recording.read_text() and "<date>" in recording.read_text()


def test_a_stream_asked_of_a_json_upstream_is_sent_as_chunks_an_sdk_reads(tmp_path: Path) -> None:
    openai = pytest.importorskip("openai")
    with ChatServer(_respond) as upstream, MeteringProxy(ProxySettings(upstream.base_url)) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key="x", max_retries=0)
        chunks = list(
            client.chat.completions.create(
                model="chat-json", messages=[], stream=True, stream_options={"include_usage": True}
            )
        )
    calls = [c for chunk in chunks for choice in chunk.choices for c in choice.delta.tool_calls or []]
    assert [(c.function.name, c.function.arguments) for c in calls] == [("read_file", '{"path": "a.py"}')]
    assert [choice.finish_reason for chunk in chunks for choice in chunk.choices][-1] == "tool_calls"
    assert chunks[-1].usage.prompt_tokens == 120 and chunks[-1].usage.completion_tokens == 7
    assert proxy.exchanges[0].usage == Usage(120, 7, 100)


def test_the_time_spent_on_answers_is_the_model_s_and_on_refusals_the_host_s(tmp_path: Path) -> None:
    """A host's time limit leaves out the model's time; a host that asks again after every refusal is still
    stopped by it."""

    def slow(status: int) -> Any:
        def respond(body: dict[str, Any]) -> Answer:
            time.sleep(1.0)
            return (status, {}, _respond({"model": "chat-json"})[2]) if status == 200 else (status, {}, {})

        return respond

    for status, counted in ((200, True), (429, False)):
        with ChatServer(slow(status)) as upstream, MeteringProxy(ProxySettings(upstream.base_url)) as proxy:
            assert proxy.model_seconds() == 0.0
            _post(proxy.base_url + "/chat/completions", {"model": "chat-json"})
            assert (proxy.model_seconds() >= 1.0) is counted, status
