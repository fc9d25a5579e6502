from __future__ import annotations

from pytest_granularity.core.tokens import count_tokens
from pytest_granularity.core.transcript import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    Message,
    Reply,
    ToolCall,
    Transcript,
    Usage,
    message_tokens,
    tools_tokens,
)


def test_cl100k_counts_known_strings():
    # Reference counts from cl100k_base (the tokenizer behind gpt-4 / gpt-3.5-turbo).
    assert count_tokens("hello world") == 2
    assert count_tokens("tiktoken is great!") == 6
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1, "special tokens in file text are counted as plain text"


def test_the_bill_follows_the_token_model():
    tools = [{"type": "function", "function": {"name": "finish", "description": "d", "parameters": {"type": "object"}}}]
    t = Transcript("sys", "do it", tools)
    head = tools_tokens(tools) + message_tokens(Message("system", "sys")) + message_tokens(Message("user", "do it"))
    first = ToolCall("read_file", {"path": "a.py"})
    (call,) = t.record_reply(Reply(calls=(first,)))
    t.add_observation(call.id, "contents")
    second = ToolCall("finish")
    t.record_reply(Reply(calls=(second,)))
    assistant1 = message_tokens(Message("assistant", tool_calls=(first,)))
    observation = message_tokens(Message("tool", "contents"))
    assistant2 = message_tokens(Message("assistant", tool_calls=(second,)))
    assert [c.prompt_tokens for c in t.calls] == [head + REPLY_PRIMING, head + assistant1 + observation + REPLY_PRIMING]
    assert [c.completion_tokens for c in t.calls] == [assistant1, assistant2]
    assert t.tokens == t.prompt_tokens + t.completion_tokens
    assert assistant1 == MESSAGE_OVERHEAD + count_tokens("assistant") + count_tokens('read_file{"path": "a.py"}')


def test_switching_tools_changes_later_prompts_only():
    big = [
        {"type": "function", "function": {"name": f"t{i}", "description": "x" * 50, "parameters": {"type": "object"}}}
        for i in range(5)
    ]
    t = Transcript("sys", "task", big)
    (call,) = t.record_reply(Reply(calls=(ToolCall("t1"),)))
    t.add_observation(call.id, "failed")
    t.set_tools(big[:1])
    t.record_reply(Reply(calls=(ToolCall("t0"),)))
    assert t.calls[1].prompt_tokens < t.calls[0].prompt_tokens + tools_tokens(big[:1])
    assert t.calls[0].prompt_tokens > tools_tokens(big)


def test_the_wire_format_has_ids_and_answers_and_keeps_notes_after_answers():
    t = Transcript("sys", "task", [])
    first, second = t.record_reply(Reply("thinking", (ToolCall("list_files"), ToolCall("read_file", {"path": "a"}))))
    assert (first.id, second.id) == ("call_1", "call_2")
    t.add_observation(first.id, "a")
    t.add_note("held until every call is answered")
    t.add_observation(second.id, "b")
    (third,) = t.record_reply(Reply(calls=(ToolCall("finish", raw="{}"),)))
    assert third.id == "call_3"
    assert t.to_list()[2:] == [
        {
            "role": "assistant",
            "content": "thinking",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "list_files", "arguments": "{}"}},
                {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a"},
        {"role": "tool", "tool_call_id": "call_2", "content": "b"},
        {"role": "user", "content": "held until every call is answered"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "finish", "arguments": "{}"}}],
        },
    ]


def test_ids_are_not_counted_and_text_replies_are():
    with_id = message_tokens(Message("assistant", tool_calls=(ToolCall("finish", id="call_99"),)))
    assert with_id == message_tokens(Message("assistant", tool_calls=(ToolCall("finish"),)))
    assert message_tokens(Message("assistant", "I will look first.")) == MESSAGE_OVERHEAD + count_tokens(
        "assistant"
    ) + count_tokens("I will look first.")


def test_provider_usage_sums_what_was_reported():
    t = Transcript("sys", "task", [])
    assert t.provider_usage() is None
    t.record_reply(Reply(calls=(ToolCall("a"),), usage=Usage(10, 2)))
    t.record_reply(Reply(calls=(ToolCall("b"),), usage=Usage(20, 3, cached=8, cost=0.5)))
    assert t.provider_usage() == Usage(30, 5, 8, 0.5)
