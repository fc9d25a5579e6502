"""Bad replies from the model server: each is an infrastructure error, or the documented handling.

A server that answers something other than a chat completion (not JSON, no message, a broken
tool call list, impossible usage counts, an HTTP error, a reply cut short) is the provider's
fault, not the agent's: the run ends as an ``error`` with ``stop_reason: infrastructure`` and a
one-line message naming the call, never as an agent failure and never with the bad numbers
billed. What the executor documents as the model's own mistakes (arguments that are not a JSON
object, a tool that does not exist) stays an observation the model can correct.
"""

from __future__ import annotations

import json

import pytest
from bad_input_kit import matches, time_bound
from model_stub import calls, error
from test_openai_agent import FIX, run

from pytest_granularity.agents.stub_server import completion

pytest.importorskip("openai")

WHERE = "task fix-add, model call 1: "
ONE_TOOL_CALL = {"id": "c", "type": "function", "function": {"name": "finish", "arguments": "{}"}}


def reply(body: object, status: int = 200, headers: dict[str, str] | None = None):
    """A raw answer: an object as JSON, bytes as they are."""
    return status, headers or {}, body if isinstance(body, (bytes, dict)) else json.dumps(body).encode()


def message(**fields: object):
    return reply({"choices": [{"index": 0, "message": {"role": "assistant", **fields}}]})


def usage(**counts: object):
    body = completion({"role": "assistant", "content": None, "tool_calls": [ONE_TOOL_CALL]})
    body["usage"] = {"prompt_tokens": 10, "completion_tokens": 1, **counts}
    return reply(body)


INFRASTRUCTURE = {
    "not-json": (
        reply(b"<html>bad gateway</html>"),
        "* answered with something that is not JSON: '<html>bad gateway</html>'",
    ),
    "json-list": (reply([1, 2]), "* answered with a JSON list, not an object"),
    "json-string": (reply("hello"), "* answered with a JSON str, not an object"),
    "no-choices": (reply({"id": "x"}), 'the server\'s reply has no choices[0].message: {"id": "x"}'),
    "empty-choices": (reply({"choices": []}), "the server's reply has no choices[0].message: *"),
    "choices-not-a-list": (reply({"choices": {"0": {}}}), "the server's reply has no choices[0].message: *"),
    "message-null": (reply({"choices": [{"message": None}]}), "the server's reply has no choices[0].message: *"),
    "message-a-string": (reply({"choices": [{"message": "hi"}]}), "the server's reply has no choices[0].message: *"),
    "tool-calls-not-a-list": (
        message(tool_calls="finish"),
        "the server's reply has a choices[0].message.tool_calls that is not a list of objects: *",
    ),
    "tool-call-not-an-object": (
        message(tool_calls=["finish"]),
        "the server's reply has a choices[0].message.tool_calls that is not a list of objects: *",
    ),
    "function-not-an-object": (
        message(tool_calls=[{"id": "c", "function": "finish"}]),
        "the server's reply has a choices[0].message.tool_calls[0].function that is not an object: *",
    ),
    "content-not-text": (
        message(content=["a", "b"]),
        "the server's reply has a choices[0].message.content that is not text: *",
    ),
    "usage-negative": (usage(prompt_tokens=-5), "the server's usage.prompt_tokens is -5, not a whole number >= 0"),
    "usage-fraction": (
        usage(completion_tokens=1.5),
        "the server's usage.completion_tokens is 1.5, not a whole number >= 0",
    ),
    "usage-text": (usage(prompt_tokens="10"), 'the server\'s usage.prompt_tokens is "10", not a whole number >= 0'),
    "usage-boolean": (
        usage(completion_tokens=True),
        "the server's usage.completion_tokens is true, not a whole number >= 0",
    ),
    "usage-cached-negative": (
        usage(prompt_tokens_details={"cached_tokens": -1}),
        "the server's usage.cached_tokens is -1, not a whole number >= 0",
    ),
    "usage-not-an-object": (
        reply({**completion({"content": "hi"}), "usage": 12}),
        "the server's usage is 12, not an object",
    ),
    "http-500": (error(500, "boom"), "* answered HTTP 500 (after 0 retries): boom"),
    "http-404": (error(404, "no such model"), "* answered HTTP 404: no such model"),
    "closed-mid-reply": (
        reply(b'{"choices": [', headers={"Content-Length": "5000"}),
        "cannot reach * (after 0 retries): *",
    ),
}


@pytest.mark.parametrize("case", sorted(INFRASTRUCTURE))
def test_a_broken_reply_is_an_infrastructure_error_naming_the_call(fix_add, case):
    answer, expected = INFRASTRUCTURE[case]
    with time_bound():
        result, _ = run(fix_add, [answer])
    assert result.outcome == "error", f"ACCEPTED: {result.outcome} ({result.stop_reason})"
    assert result.stop_reason == "infrastructure", f"UNCLEAR: blamed on {result.stop_reason}: {result.error}"
    assert "\n" not in result.error and matches(result.error, WHERE + expected), f"UNCLEAR: {result.error!r}"
    assert result.provider_prompt_tokens is None, "ACCEPTED: a refused reply's usage was billed"


OBSERVED = {
    "arguments-not-json": ('{"path": ', "error: the arguments of read_file are not a JSON object (invalid JSON*"),
    "arguments-a-list": (
        "[1, 2]",
        "error: the arguments of read_file are not a JSON object (a JSON list, not an object)*",
    ),
    "arguments-a-number": (7, "error: the arguments of read_file are not a JSON object (a JSON int, not an object)*"),
}


@pytest.mark.parametrize("case", sorted(OBSERVED))
def test_tool_arguments_that_are_not_an_object_are_an_observation_the_model_sees(fix_add, case):
    arguments, expected = OBSERVED[case]
    with time_bound():
        result, _ = run(fix_add, [calls(("read_file", arguments)), calls(FIX), calls(("finish", {}))])
    observation = next(m["content"] for m in result.transcript if m["role"] == "tool")
    assert matches(observation, expected), f"UNCLEAR: {observation[:300]!r}"
    assert result.success and result.stop_reason == "finished"


@pytest.mark.parametrize("name", ["rm_rf", "", 42, None])
def test_an_unknown_or_missing_tool_name_is_an_observation(fix_add, name):
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}
    with time_bound():
        result, _ = run(fix_add, [message(content=None, tool_calls=[call]), calls(FIX), calls(("finish", {}))])
    observation = next(m["content"] for m in result.transcript if m["role"] == "tool")
    assert observation.startswith("error: ") and "is not available" in observation, f"UNCLEAR: {observation[:300]!r}"
    assert result.success


def test_a_huge_reply_is_refused_not_kept(fix_add):
    huge = message(content="x" * 6_000_000)
    with time_bound():
        result, _ = run(fix_add, [huge])
    assert result.outcome == "error" and result.stop_reason == "infrastructure", f"ACCEPTED: {result.stop_reason}"
    assert matches(result.error, WHERE + "* answered with * bytes, more than the limit of *"), result.error
    assert len(json.dumps(result.to_dict())) < 1_000_000, "ACCEPTED: the huge reply was kept in the run record"
