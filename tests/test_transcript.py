from __future__ import annotations

from pytest_granularity.tokens import count_tokens
from pytest_granularity.transcript import MESSAGE_OVERHEAD, REPLY_PRIMING, Message, ToolCall, Transcript, message_tokens, tools_tokens


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
    t.record_call(first)
    t.add_observation("contents")
    second = ToolCall("finish")
    t.record_call(second)
    assistant1 = message_tokens(Message("assistant", tool_call=first))
    observation = message_tokens(Message("tool", "contents"))
    assistant2 = message_tokens(Message("assistant", tool_call=second))
    assert [c.prompt_tokens for c in t.calls] == [head + REPLY_PRIMING, head + assistant1 + observation + REPLY_PRIMING]
    assert [c.completion_tokens for c in t.calls] == [assistant1, assistant2]
    assert t.tokens == t.prompt_tokens + t.completion_tokens
    assert assistant1 == MESSAGE_OVERHEAD + count_tokens("assistant") + count_tokens('read_file{"path": "a.py"}')


def test_switching_tools_changes_later_prompts_only():
    big = [{"type": "function", "function": {"name": f"t{i}", "description": "x" * 50, "parameters": {"type": "object"}}} for i in range(5)]
    t = Transcript("sys", "task", big)
    t.record_call(ToolCall("t1"))
    t.add_observation("failed")
    t.set_tools(big[:1])
    t.record_call(ToolCall("t0"))
    assert t.calls[1].prompt_tokens < t.calls[0].prompt_tokens + tools_tokens(big[:1])
    assert t.calls[0].prompt_tokens > tools_tokens(big)
