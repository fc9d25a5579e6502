"""The options for real-model agents, and the ``openai`` agent built from them.

A plugin of its own (loaded by the main plugin) so the model's settings stay in one place:
``--granularity-agent=openai`` drives any OpenAI-compatible chat-completions server with the
model, endpoint, key variable and sampling settings given here (each also an ini key), through
the record/replay cache when one is given. Nothing here imports ``openai``: that happens on the
first live request.
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .agents import AgentSetup
from .agents.chat import ChatAgent, Price, Sampling, Send
from .agents.model_cache import MODES, ModelCache
from .agents.openai_client import Endpoint, OpenAISender
from .result import LOCAL, PROVIDER

AGENT_NAME = "openai"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2

_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("model", "NAME", "model name sent to the server (required with --granularity-agent=openai)"),
    (
        "base-url",
        "URL",
        "OpenAI-compatible endpoint, for example http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI)",
    ),
    (
        "api-key-env",
        "VAR",
        "environment variable holding the API key (default OPENAI_API_KEY; unset is fine for local servers)",
    ),
    ("temperature", "X", "sampling temperature (default: the server's)"),
    ("max-completion-tokens", "N", "max_completion_tokens per model call (default: the server's)"),
    ("request-timeout", "SECONDS", f"timeout of one request (default {DEFAULT_TIMEOUT:g})"),
    (
        "model-retries",
        "N",
        f"retries on 408/409/429/5xx and connection errors, honouring Retry-After (default {DEFAULT_RETRIES})",
    ),
    ("max-tokens-per-run", "N", "stop a run that spends more tokens than this, as failed"),
    (
        "token-source",
        "provider|local",
        "tokens to report and gate on: the provider's usage where reported (default), or the local cl100k count",
    ),
    ("model-cache", "DIR", "record model responses to DIR and replay them (see --granularity-model-cache-mode)"),
    (
        "model-cache-mode",
        "|".join(MODES),
        "with --granularity-model-cache: default auto (replay what is recorded, record the rest)",
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("granularity-model", "real-model agents (pytest-granularity)")
    for name, metavar, help_text in _OPTIONS:
        group.addoption(f"--granularity-{name}", default=None, metavar=metavar, help=help_text)
        parser.addini(f"granularity_{name.replace('-', '_')}", f"default for --granularity-{name}", default="")
    parser.addini(
        "granularity_prices",
        "per-model prices in USD per million tokens: lines of 'MODEL PROMPT COMPLETION [CACHED]'",
        type="linelist",
        default=[],
    )


def _value(config: pytest.Config, name: str) -> str | None:
    return config.getoption(f"--granularity-{name}") or config.getini(f"granularity_{name.replace('-', '_')}") or None


def _number(config: pytest.Config, name: str, kind: Callable[[str], Any], minimum: float = 0) -> Any:
    raw = _value(config, name)
    if raw is None:
        return None
    try:
        value = kind(raw)
    except ValueError:
        raise pytest.UsageError(
            f"--granularity-{name}: '{raw}' is not a {'whole ' if kind is int else ''}number"
        ) from None
    if value < minimum:
        raise pytest.UsageError(f"--granularity-{name}: {raw} must be at least {minimum:g}")
    return value


def run_settings(config: pytest.Config) -> dict[str, Any]:
    """The :class:`RunSettings` fields these options set: the token budget and source."""
    source = _value(config, "token-source") or PROVIDER
    if source not in (PROVIDER, LOCAL):
        raise pytest.UsageError(f"--granularity-token-source: '{source}' is not provider or local")
    return {"max_tokens": _number(config, "max-tokens-per-run", int, 1), "token_source": source}


def pytest_granularity_agents(config: pytest.Config) -> dict[str, Any]:
    selected = (config.getoption("--granularity-agent") or config.getini("granularity_agent")) == AGENT_NAME
    return {AGENT_NAME: openai_factory(config) if selected else _not_configured}


def _not_configured(setup: AgentSetup) -> Any:
    raise RuntimeError("the openai agent was not selected when the session was configured")


@dataclass(frozen=True)
class OpenAIAgentFactory:
    """Builds each run's :class:`ChatAgent`; the sender (and its connection pool) is shared by a worker's runs."""

    sampling: Sampling
    send: Send
    price: Price | None

    def __call__(self, setup: AgentSetup) -> ChatAgent:
        return ChatAgent(setup, self.sampling, self.send, self.price)


def openai_factory(config: pytest.Config) -> OpenAIAgentFactory:
    model = _value(config, "model")
    if not model:
        raise pytest.UsageError(
            "--granularity-agent=openai needs --granularity-model=NAME (or the ini key granularity_model)"
        )
    sampling = Sampling(model, _number(config, "temperature", float), _number(config, "max-completion-tokens", int, 1))
    folder, mode = _cache_settings(config)
    live: Send | None = None
    if mode != "replay":
        if importlib.util.find_spec("openai") is None:
            raise pytest.UsageError(
                "--granularity-agent=openai needs the openai package: pip install 'pytest-granularity[model]'"
            )
        endpoint = Endpoint(
            _value(config, "base-url") or os.environ.get("OPENAI_BASE_URL"),
            _value(config, "api-key-env") or "OPENAI_API_KEY",
            _number(config, "request-timeout", float) or DEFAULT_TIMEOUT,
            _retries(config),
        )
        live = OpenAISender(endpoint)
    send = live if folder is None else ModelCache(folder, mode, _session(config), live)
    assert send is not None
    return OpenAIAgentFactory(sampling, send, _prices(config).get(model))


def _retries(config: pytest.Config) -> int:
    value = _number(config, "model-retries", int)
    return DEFAULT_RETRIES if value is None else value


def _cache_settings(config: pytest.Config) -> tuple[Path | None, str]:
    raw = _value(config, "model-cache")
    mode = _value(config, "model-cache-mode") or ("auto" if raw else "off")
    if mode not in MODES:
        raise pytest.UsageError(f"--granularity-model-cache-mode: '{mode}' is not one of {', '.join(MODES)}")
    if mode != "off" and not raw:
        raise pytest.UsageError(f"--granularity-model-cache-mode={mode} needs --granularity-model-cache=DIR")
    if mode == "off" or raw is None:
        return None, mode
    folder = Path(raw)
    return (folder if folder.is_absolute() else config.invocation_params.dir / folder), mode


def _session(config: pytest.Config) -> str:
    """One id for the whole session: xdist's test run id on a worker (shared by all), else a fresh one."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput and workerinput.get("testrunuid"):
        return str(workerinput["testrunuid"])
    return uuid.uuid4().hex


def _prices(config: pytest.Config) -> dict[str, Price]:
    prices = {}
    for line in config.getini("granularity_prices"):
        parts = line.split()
        try:
            numbers = [float(p) for p in parts[1:]]
        except ValueError:
            numbers = []
        if len(parts) not in (3, 4) or len(numbers) != len(parts) - 1:
            raise pytest.UsageError(
                f"granularity_prices: '{line}' is not 'MODEL PROMPT COMPLETION [CACHED]' (USD per million tokens)"
            )
        prices[parts[0]] = Price(*numbers)
    return prices
