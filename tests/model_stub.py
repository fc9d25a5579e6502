"""Helpers for driving the OpenAI-compatible agent against a stub server in tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_granularity.agents.chat import Price, Sampling
from pytest_granularity.agents.model_cache import ModelCache
from pytest_granularity.agents.openai_client import Endpoint, OpenAISender
from pytest_granularity.agents.stub_server import Answer, completion, tool_message
from pytest_granularity.core.transcript import Usage
from pytest_granularity.plugin.model_plugin import OpenAIAgentFactory
from pytest_granularity.run.runner import RunSettings


def factory(
    base_url: str | None,
    retries: int = 0,
    price: Price | None = None,
    cache: Path | None = None,
    mode: str = "auto",
    session: str = "s1",
) -> OpenAIAgentFactory:
    live = (
        None
        if base_url is None
        else OpenAISender(Endpoint(base_url, "GRANULARITY_TEST_KEY", timeout=10, max_retries=retries))
    )
    send = live if cache is None else ModelCache(cache, mode, session, live)
    assert send is not None
    return OpenAIAgentFactory(Sampling("stub-model", temperature=0.0), send, price)


def settings(agent: OpenAIAgentFactory, **kwargs: Any) -> RunSettings:
    return RunSettings(agent=agent, **kwargs)


SOME_USAGE = Usage(100, 10)


class Script:
    """A ``respond`` that answers with the given answers in order (the last one repeats)."""

    def __init__(self, answers: Iterable[Answer]) -> None:
        self.answers = list(answers)

    def __call__(self, body: dict[str, Any]) -> Answer:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def calls(*named: tuple[str, Any], usage: Usage | None = SOME_USAGE) -> Answer:
    """A 200 answer calling each (name, arguments): a dict is sent as JSON, a string as it is."""
    encoded = [(name, args if isinstance(args, str) else json.dumps(args)) for name, args in named]
    return 200, {}, completion(tool_message(*encoded), usage)


def text(content: str, usage: Usage | None = SOME_USAGE) -> Answer:
    return 200, {}, completion({"role": "assistant", "content": content}, usage)


def error(status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None) -> Answer:
    return status, headers or {}, {"error": {"message": message, "type": "invalid_request_error", "code": code}}
