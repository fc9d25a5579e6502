"""The OpenAI-compatible agent against a stub server: misbehaviour is an outcome, faults are errors."""

from __future__ import annotations

import time

import pytest
from model_stub import Script, calls, error, factory, settings, text

from pytest_granularity.agents.chat import Price
from pytest_granularity.agents.stub_server import ChatServer
from pytest_granularity.core.transcript import Usage
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import run_task

pytest.importorskip("openai")

MICRO, HYBRID = FIXED_POLICIES["micro"], FIXED_POLICIES["hybrid"]
FIX = ("edit_file", {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"})


def run(task, answers, policy=MICRO, retries=0, **kwargs):
    with ChatServer(Script(answers)) as server:
        result = run_task(
            task, policy, "none", settings(factory(server.base_url, retries, kwargs.pop("price", None)), **kwargs)
        )
    return result, server.requests


def test_a_model_that_fixes_the_task_passes_and_sends_the_real_wire_format(fix_add):
    result, requests = run(fix_add, [calls(("read_file", {"path": "calc/ops.py"})), calls(FIX), calls(("finish", {}))])
    assert result.success and result.steps == 2 and result.stop_reason == "finished"
    last = requests[-1]
    assert last["parallel_tool_calls"] is False and last["temperature"] == 0.0 and last["model"] == "stub-model"
    assert [t["function"]["name"] for t in last["tools"]][:2] == ["list_files", "read_file"]
    assistant, tool = last["messages"][2], last["messages"][3]
    assert (
        assistant["tool_calls"][0]["id"] == "call_1" and assistant["tool_calls"][0]["function"]["name"] == "read_file"
    )
    assert (
        tool == {"role": "tool", "tool_call_id": "call_1", "content": tool["content"]}
        and "SCALE = 2" in tool["content"]
    )
    assert last["messages"] == result.transcript[: len(last["messages"])]
    assert [c["request"]["messages"] for c in result.model_calls] == [len(r["messages"]) for r in requests]


def test_text_without_a_tool_call_gets_a_nudge_and_is_billed(fix_add):
    result, _ = run(fix_add, [text("Let me think about SCALE first."), calls(FIX), calls(("finish", {}))])
    assert result.success and result.steps == 1
    assert result.transcript[2] == {"role": "assistant", "content": "Let me think about SCALE first."}
    assert result.transcript[3]["role"] == "user" and "called no tool" in result.transcript[3]["content"]
    assert len(result.model_calls) == 3 and result.local_tokens > 0


def test_a_model_that_only_talks_stops_at_the_step_limit(fix_add):
    result, _ = run(fix_add, [text("hmm")], max_steps=3)
    assert result.outcome == "failed" and result.stop_reason == "step_limit" and len(result.model_calls) == 4


def test_malformed_arguments_and_unknown_tools_are_error_observations(fix_add):
    result, _ = run(
        fix_add,
        [
            calls(("read_file", '{"path": "calc/ops.py"')),
            calls(("rm_rf", {})),
            calls(("read_file", "[1]")),
            calls(FIX),
            calls(("finish", {})),
        ],
    )
    assert result.success and result.steps == 4
    observations = [m["content"] for m in result.transcript if m["role"] == "tool"]
    assert observations[0].startswith("error: the arguments of read_file are not a JSON object (invalid JSON")
    assert "'rm_rf' is not available" in observations[1]
    assert "a JSON list, not an object" in observations[2]
    assert result.transcript[2]["tool_calls"][0]["function"]["arguments"] == '{"path": "calc/ops.py"', (
        "the raw text is kept as sent"
    )


def test_a_macros_malformed_arguments_stay_a_protocol_failure(fix_add):
    result, _ = run(
        fix_add, [calls(("replace_and_verify", '{"files": ')), calls(FIX), calls(("finish", {}))], policy=HYBRID
    )
    assert result.failure_class == "protocol_failure" and result.degraded and result.success
    assert result.macro_calls == 1 and "arguments are not a JSON object" in result.transcript[3]["content"]


def test_several_calls_in_one_reply_run_in_order_and_are_noted(fix_add):
    result, requests = run(fix_add, [calls(("read_file", {"path": "calc/ops.py"}), FIX), calls(("finish", {}))])
    assert result.success and result.steps == 2
    assert result.notes == ["model call 1 returned 2 tool calls; ran them in order"]
    sent = requests[1]["messages"]
    assert [m.get("tool_call_id") for m in sent[3:5]] == ["call_1", "call_2"]


def test_a_degrade_note_waits_for_the_replys_other_answers(fix_add):
    broken = ("replace_and_verify", {"files": ["calc/ops.py"], "old": "SCALE = 7", "new": "SCALE = 1"})
    result, _ = run(fix_add, [calls(broken, ("list_files", {})), calls(("finish", {}))], policy=HYBRID)
    roles = [m["role"] for m in result.transcript]
    assert (
        result.degraded
        and result.stop_reason == "finished"
        and roles[2:] == ["assistant", "tool", "tool", "user", "assistant"]
    )
    assert "Macro skills are no longer available" in result.transcript[5]["content"]


def test_a_context_length_error_fails_the_run_with_its_own_stop_reason(fix_add):
    too_long = error(400, "This model's maximum context length is 8192 tokens.", code="context_length_exceeded")
    result, _ = run(fix_add, [calls(("list_files", {})), too_long])
    assert result.outcome == "failed" and result.stop_reason == "context_length" and result.steps == 1
    assert result.transcript[-1]["role"] == "tool", "the transcript so far is kept"


def test_the_token_budget_stops_a_run_as_failed(fix_add):
    result, _ = run(fix_add, [calls(("list_files", {}), usage=Usage(600, 10))], max_tokens=1000)
    assert (
        result.outcome == "failed"
        and result.stop_reason == "token_limit"
        and result.steps == 1
        and result.tokens == 1220
    )


def test_a_refused_key_is_named_by_its_variable_never_its_value(fix_add, monkeypatch):
    monkeypatch.setenv("GRANULARITY_TEST_KEY", "sk-very-secret-value")
    result, _ = run(fix_add, [error(401, "Incorrect API key provided: sk-very-secret-value.")])
    assert result.outcome == "error" and result.stop_reason == "infrastructure"
    assert "GRANULARITY_TEST_KEY" in result.error and "HTTP 401" in result.error and "secret" not in result.error
    assert "secret" not in str(result.to_dict())


def test_server_errors_after_retries_are_infrastructure_errors_with_the_transcript(fix_add):
    fail = error(503, "overloaded", headers={"retry-after-ms": "1"})
    result, requests = run(fix_add, [calls(("list_files", {})), fail], retries=2)
    assert result.outcome == "error" and "HTTP 503 (after 2 retries)" in result.error and "model call 2" in result.error
    assert len(requests) == 4 and result.steps == 1 and len(result.transcript) == 4


def test_a_429_is_retried_after_retry_after(fix_add):
    answers = [error(429, "slow down", headers={"retry-after": "1"}), calls(("finish", {}))]
    started = time.monotonic()
    result, requests = run(fix_add, answers, retries=1)
    assert len(requests) == 2 and result.stop_reason == "finished"
    assert time.monotonic() - started >= 0.9, "the client waited as Retry-After asked"


def test_an_unreachable_server_is_an_infrastructure_error(fix_add):
    with ChatServer(Script([text("x")])) as server:
        url = server.base_url
    result = run_task(fix_add, MICRO, "none", settings(factory(url)))
    assert result.outcome == "error" and "cannot reach" in result.error and "model call 1" in result.error


def test_provider_usage_is_billed_and_priced(fix_add):
    answers = [calls(FIX, usage=Usage(1000, 50, cached=400)), calls(("finish", {}), usage=Usage(1200, 20, cached=1000))]
    result, _ = run(fix_add, answers, price=Price(2.0, 8.0, 0.5))
    assert (result.provider_prompt_tokens, result.provider_completion_tokens, result.provider_cached_tokens) == (
        2200,
        70,
        1400,
    )
    assert result.token_source == "provider" and result.tokens == 2270 and result.local_tokens != result.tokens
    assert result.cost == pytest.approx((600 * 2.0 + 400 * 0.5 + 50 * 8 + 200 * 2.0 + 1000 * 0.5 + 20 * 8) / 1e6)
    local, _ = run(fix_add, answers, token_source="local")
    assert local.token_source == "local" and local.tokens == local.local_tokens == result.local_tokens


def test_an_agent_that_cannot_be_built_is_an_error_result(fix_add):
    def broken(setup):
        raise RuntimeError("no model today")

    result = run_task(fix_add, MICRO, "none", settings(broken))
    assert result.outcome == "error" and "no model today" in result.error


def test_the_agent_never_sees_the_solution_or_the_verifier(fix_add):
    """Every request the agent sends, for a model that looks everywhere, holds no byte of the answer."""
    script = [
        calls(("list_files", {})),
        calls(("read_file", {"path": "calc/ops.py"})),
        calls(("run_tests", {})),
        calls(("show_diff", {})),
        calls(("finish", {})),
    ]
    secrets = [p.read_text() for p in (fix_add.solution_overlay.rglob("*.py"))] + [
        p.read_text() for p in fix_add.verifier_tests.rglob("*.py")
    ]
    secrets.append(str(fix_add.macro.args))
    for policy in (MICRO, HYBRID):
        _, requests = run(fix_add, script, policy=policy)
        sent = str(requests)
        assert len(requests) == (5 if policy is MICRO else 6), (
            "hybrid: finishing with no macro applied degrades, one more call"
        )
        for secret in secrets:
            assert secret not in sent and secret.replace("\n", "\\n") not in sent
        assert "SCALE = 1" not in sent and "test_add_is_plain_sum" not in sent


def test_a_request_too_long_for_the_context_has_its_oldest_results_cut_first():
    from pytest_granularity.agents.chat import CUT_NOTE, _request_tokens, fit_context

    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "task"},
        *(
            m
            for n in range(3)
            for m in ({"role": "assistant", "content": f"a{n}"}, {"role": "tool", "content": "x " * 400})
        ),
    ]
    whole = _request_tokens(messages, [])
    assert fit_context(messages, [], whole) == (messages, 0), "a request that fits is sent as it is"
    fitted, cut = fit_context(messages, [], whole - 10)
    assert cut == 1 and fitted[3]["content"] == CUT_NOTE.format(chars=800) and fitted[5:] == messages[5:]
    fitted, cut = fit_context(messages, [], 0)
    assert cut == 3 and fitted[:3] == messages[:3] and [m["content"] for m in fitted[2::2]] == ["a0", "a1", "a2"]
