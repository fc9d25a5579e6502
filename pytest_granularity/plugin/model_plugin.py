"""The options for real-model agents, and the ``openai`` and ``local`` agents built from them.

A plugin of its own (loaded by the main plugin) so the model's settings stay in one place:
``--granularity-agent=openai`` drives any OpenAI-compatible chat-completions server with the
model, endpoint, key variable and sampling settings given here (each also an ini key), through
the record/replay cache when one is given. ``--granularity-agent=local`` is the same agent with
a server it starts itself for a bundled model (or a GGUF file), on 127.0.0.1, at temperature 0
with capped replies unless told otherwise. Nothing here imports ``openai``: that happens on the
first live request.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..agents import AgentSetup, InfrastructureError
from ..agents.chat import ChatAgent, Price, Sampling, Send
from ..agents.host_agent import DEFAULT_HOST_TIMEOUT, HostAgentFactory, HostSettings
from ..agents.hosts import HOSTS
from ..agents.local_model import (
    DEFAULT_MODEL,
    LocalSend,
    LocalServer,
    LocalSettings,
    ModelFileError,
    default_threads,
    model_file,
    refuse_special,
    server_available,
)
from ..agents.model_cache import MODES, ModelCache
from ..agents.openai_client import Endpoint, OpenAISender
from ..agents.server_settings import ARGUMENT_GRAMMARS, ServerSettings
from ..core.distribution import install_command
from ..core.result import TokenSource
from .options import Option, add_options, named, sandbox_of, setting

AGENT_NAME = "openai"
LOCAL_AGENT = "local"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
LOCAL_MAX_COMPLETION_TOKENS = 256
"""The local lane's default cap per reply: a small model that starts a long answer rarely ends it."""
TOOL_CHOICES = ("auto", "required", "none")
SWITCH = ("on", "off")
HOST_PREFIX = "host:"

MODEL = ("granularity-model", "real-model agents (pytest-granularity)")
MODEL_OPTIONS: tuple[Option, ...] = (
    Option(
        "model",
        "model name sent to the server (required with --granularity-agent=openai); with --granularity-agent=local, "
        f"a bundled model's name or a GGUF file (default {DEFAULT_MODEL})",
        metavar="NAME",
        group=MODEL,
    ),
    Option(
        "base-url",
        "OpenAI-compatible endpoint, for example http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI)",
        metavar="URL",
        group=MODEL,
    ),
    Option(
        "api-key-env",
        "environment variable holding the API key (default OPENAI_API_KEY; unset is fine for local servers)",
        metavar="VAR",
        group=MODEL,
    ),
    Option(
        "temperature",
        "sampling temperature (default: the server's)",
        metavar="X",
        group=MODEL,
    ),
    Option(
        "max-completion-tokens",
        f"max_completion_tokens per model call (default: the server's; {LOCAL_MAX_COMPLETION_TOKENS} with "
        "the local agent)",
        metavar="N",
        group=MODEL,
    ),
    Option(
        "tool-choice",
        "the request's tool_choice (default: not sent, which the API reads as auto when tools are offered)",
        metavar="|".join(TOOL_CHOICES),
        group=MODEL,
    ),
    Option(
        "strict-tools",
        "send each tool as a strict function (OpenAI structured outputs: every call parses and matches "
        "its schema) where its schema has a strict form (default off)",
        metavar="|".join(SWITCH),
        group=MODEL,
    ),
    Option(
        "request-timeout",
        f"timeout of one request (default {DEFAULT_TIMEOUT:g})",
        metavar="SECONDS",
        group=MODEL,
    ),
    Option(
        "model-retries",
        f"retries on 408/409/429/5xx and connection errors, honouring Retry-After (default {DEFAULT_RETRIES})",
        metavar="N",
        group=MODEL,
    ),
    Option(
        "max-tokens-per-run",
        "stop a run that spends more tokens than this, as failed",
        metavar="N",
        group=MODEL,
    ),
    Option(
        "token-source",
        "tokens to report and gate on: the provider's usage where reported (default), or the local cl100k count",
        metavar="provider|local",
        group=MODEL,
    ),
    Option(
        "model-cache",
        "record model responses to DIR and replay them (see --granularity-model-cache-mode)",
        metavar="DIR",
        group=MODEL,
    ),
    Option(
        "model-cache-mode",
        "with --granularity-model-cache: default auto (replay what is recorded, record the rest)",
        metavar="|".join(MODES),
        group=MODEL,
    ),
    Option(
        "local-threads",
        "with the local agent: threads per server (default: the cores split between workers)",
        metavar="N",
        group=MODEL,
    ),
    Option(
        "local-ctx",
        "with the local agent: the model's context window in tokens (default {default})",
        metavar="N",
        shown=str(ServerSettings.n_ctx),
        group=MODEL,
    ),
    Option(
        "local-port",
        "with the local agent: the server's port on 127.0.0.1 (default {default}: a free one)",
        metavar="N",
        shown=str(LocalSettings.port),
        group=MODEL,
    ),
    Option(
        "local-startup-timeout",
        "with the local agent: how long the server may take to load (default {default:g})",
        metavar="SECONDS",
        shown=LocalSettings.startup_timeout,
        group=MODEL,
    ),
    Option(
        "local-grammar",
        "with the local agent: generate a call's arguments under its tool's JSON-schema grammar (default "
        "{default}), or under the grammar of any JSON value (json)",
        metavar="|".join(ARGUMENT_GRAMMARS),
        shown=ServerSettings.arguments_grammar,
        group=MODEL,
    ),
    Option(
        "host-timeout",
        f"with --granularity-agent=host:NAME: how long the host may run per item (default {DEFAULT_HOST_TIMEOUT:g})",
        metavar="SECONDS",
        group=MODEL,
    ),
    Option(
        "host-command",
        "with --granularity-agent=host:NAME: the host's executable (default: NAME on PATH)",
        metavar="PATH",
        group=MODEL,
    ),
)
"""The model plugin's options, each with its ini key; none has a default of its own here (an unset one is None):
the agent that reads it decides, as its help says."""


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser, MODEL_OPTIONS)
    parser.addini(
        "granularity_prices",
        "per-model prices in USD per million tokens: lines of 'MODEL PROMPT COMPLETION [CACHED]'",
        type="linelist",
        default=[],
    )


def _value(config: pytest.Config, name: str) -> str | None:
    value: str | None = setting(config, named(name, MODEL_OPTIONS))
    return value


MAX_RETRIES = 10
"""Retries back off exponentially (the SDK's, up to 8 s each): ten already wait over a minute on a closed port."""
NUMBERS: dict[str, tuple[Callable[[str], Any], float, float]] = {
    "temperature": (float, 0, 2),
    "max-completion-tokens": (int, 1, math.inf),
    "request-timeout": (float, 0.1, math.inf),
    "model-retries": (int, 0, MAX_RETRIES),
    "max-tokens-per-run": (int, 1, math.inf),
    "local-threads": (int, 1, math.inf),
    "local-ctx": (int, 256, math.inf),
    "local-port": (int, 0, 65535),
    "local-startup-timeout": (float, 0.1, math.inf),
    "host-timeout": (float, 1, math.inf),
}
"""Each numeric option's type and bounds: every one is checked whichever agent runs (``run_settings``)."""


def _number(config: pytest.Config, name: str) -> Any:
    raw = _value(config, name)
    if raw is None:
        return None
    kind, minimum, maximum = NUMBERS[name]
    try:
        value = kind(raw)
    except ValueError:
        raise pytest.UsageError(
            f"--granularity-{name}: '{raw}' is not a {'whole ' if kind is int else ''}number"
        ) from None
    if not math.isfinite(value):
        raise pytest.UsageError(f"--granularity-{name}: '{raw}' is not a finite number")
    if value < minimum:
        raise pytest.UsageError(f"--granularity-{name}: {raw} must be at least {minimum:g}")
    if value > maximum:
        raise pytest.UsageError(f"--granularity-{name}: {raw} must be at most {maximum:g}")
    return value


def run_settings(config: pytest.Config) -> dict[str, Any]:
    """The :class:`RunSettings` fields these options set: the token budget and source.

    Every model option is checked here, whichever agent runs, so a bad value is refused even
    when the option would not be used."""
    source = _value(config, "token-source") or TokenSource.PROVIDER
    if source not in (TokenSource.PROVIDER, TokenSource.LOCAL):
        raise pytest.UsageError(f"--granularity-token-source: '{source}' is not provider or local")
    _cache_settings(config)
    _tool_choice(config)
    _choice(config, "local-grammar", ARGUMENT_GRAMMARS)
    _choice(config, "strict-tools", SWITCH)
    for name in NUMBERS:
        _number(config, name)
    _model_path(_value(config, "model"))
    return {"max_tokens": _number(config, "max-tokens-per-run"), "token_source": TokenSource(source)}


def _model_path(spec: str | None) -> None:
    """Whichever agent runs, a model given as a path that is not a regular file is refused before any run."""
    if spec:
        try:
            refuse_special(Path(spec))
        except ModelFileError as exc:
            raise pytest.UsageError(f"--granularity-model: {exc}") from None


def pytest_granularity_agents(config: pytest.Config) -> dict[str, Any]:
    selected = setting(config, named("agent"))
    hosts = {f"{HOST_PREFIX}{name}": name for name in HOSTS}
    return {
        AGENT_NAME: openai_factory(config) if selected == AGENT_NAME else _not_configured,
        LOCAL_AGENT: local_factory(config) if selected == LOCAL_AGENT else _not_configured,
        **{
            agent: host_factory(config, name) if selected == agent else _not_configured for agent, name in hosts.items()
        },
    }


def _not_configured(setup: AgentSetup) -> Any:
    raise RuntimeError("this model agent was not selected when the session was configured")


@dataclass(frozen=True)
class OpenAIAgentFactory:
    """Builds each run's :class:`ChatAgent`; the sender (and its connection pool) is shared by a worker's runs."""

    sampling: Sampling
    send: Send
    price: Price | None
    context: int | None = None
    """The model's context window in tokens, when known (the local agent's): requests are cut to fit it."""

    def __call__(self, setup: AgentSetup) -> ChatAgent:
        return ChatAgent(setup, self.sampling, self.send, self.price, self.context)


def openai_factory(config: pytest.Config) -> OpenAIAgentFactory:
    model = _value(config, "model")
    if not model:
        raise pytest.UsageError(
            "--granularity-agent=openai needs --granularity-model=NAME (or the ini key granularity_model)"
        )
    sampling = _sampling(config, model, temperature=None, max_completion_tokens=None)

    def live() -> Send:
        _require_openai(AGENT_NAME, "model")
        return OpenAISender(
            Endpoint(
                _value(config, "base-url") or os.environ.get("OPENAI_BASE_URL"),
                _value(config, "api-key-env") or "OPENAI_API_KEY",
                _number(config, "request-timeout") or DEFAULT_TIMEOUT,
                _retries(config),
            )
        )

    return _factory(config, sampling, live)


def local_factory(config: pytest.Config) -> OpenAIAgentFactory:
    """The bundled model (or a GGUF file) behind a server this process starts on its first request."""
    spec = _value(config, "model") or DEFAULT_MODEL
    alias = spec if "/" not in spec and not spec.endswith(".gguf") else Path(spec).stem
    sampling = _sampling(config, alias, temperature=0.0, max_completion_tokens=LOCAL_MAX_COMPLETION_TOKENS)

    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    given = {
        "n_ctx": _number(config, "local-ctx"),
        "threads": _number(config, "local-threads") or default_threads(workers),
        "max_tokens": sampling.max_completion_tokens,
        "timeout": _number(config, "request-timeout"),
        "startup_timeout": _number(config, "local-startup-timeout"),
        "port": _number(config, "local-port"),
        "arguments_grammar": _choice(config, "local-grammar", ARGUMENT_GRAMMARS),
    }
    options = {name: value for name, value in given.items() if value is not None}

    def live() -> Send:
        _require_openai(LOCAL_AGENT, "local")
        try:
            path = model_file(spec)
        except ModelFileError as exc:
            raise pytest.UsageError(f"--granularity-model: {exc}") from None
        if not server_available():
            raise pytest.UsageError(f"--granularity-agent=local needs llama-cpp-python: {install_command(['local'])}")
        server = LocalServer(LocalSettings(path, alias, **options))
        config.add_cleanup(server.stop)
        if not hasattr(config, "workerinput"):
            _prove(server, stop=getattr(config.option, "dist", "no") != "no")
        return LocalSend(server)

    context = options.get("n_ctx", ServerSettings.n_ctx)
    return dataclasses.replace(_factory(config, sampling, live), context=context)


def _prove(server: LocalServer, stop: bool) -> None:
    """Start the server once before any run, so a build that cannot load the model or generate stops the
    session with one error naming the cause (and the remedy), not every run as an error. Under xdist
    the controller runs nothing: it stops its server again and each worker starts its own."""
    try:
        server.url()
    except InfrastructureError as exc:
        raise pytest.UsageError(f"--granularity-agent=local: {exc}") from None
    if stop:
        server.stop()


def host_factory(config: pytest.Config, name: str) -> HostAgentFactory:
    """An agent host (docs/hosts.md) started for each item, its model behind the metering proxy and recorded when
    asked; a replay needs the host, but neither its key nor its endpoint."""
    host, agent = HOSTS[name], f"--granularity-agent={HOST_PREFIX}{name}"
    model = _value(config, "model")
    if not model:
        raise pytest.UsageError(f"{agent} needs --granularity-model=NAME (the model the host asks for)")
    executable = _value(config, "host-command") or shutil.which(host.executable)
    if executable is None:
        raise pytest.UsageError(
            f"{agent}: '{host.executable}' is not on PATH; install it or give --granularity-host-command"
        )
    folder, mode = _cache_settings(config)
    upstream = None if mode == "replay" else _value(config, "base-url") or host.upstream
    if upstream is None and mode != "replay":
        raise pytest.UsageError(f"{agent} needs --granularity-base-url=URL (the host's model endpoint)")
    state = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    settings = HostSettings(
        host,
        executable,
        model,
        upstream,
        folder,
        mode,
        _session(config),
        _number(config, "host-timeout") or DEFAULT_HOST_TIMEOUT,
        _number(config, "request-timeout") or DEFAULT_TIMEOUT,
        _value(config, "api-key-env") or host.key_variable,
        state / "pytest-granularity" / "hosts",
        sandbox_of(config),
    )
    factory = HostAgentFactory(settings)
    config.add_cleanup(factory.close)
    return factory


def _sampling(
    config: pytest.Config, model: str, temperature: float | None, max_completion_tokens: int | None
) -> Sampling:
    """The request's settings: the options where given, else the agent's defaults."""
    given_temperature = _number(config, "temperature")
    given_cap = _number(config, "max-completion-tokens")
    return Sampling(
        model,
        temperature if given_temperature is None else given_temperature,
        max_completion_tokens if given_cap is None else given_cap,
        _tool_choice(config),
        _choice(config, "strict-tools", SWITCH) == "on",
    )


def _factory(config: pytest.Config, sampling: Sampling, live: Callable[[], Send]) -> OpenAIAgentFactory:
    """The agent over its live sender, through the recordings when asked; a replay needs no sender at all."""
    folder, mode = _cache_settings(config)
    sender = None if mode == "replay" else live()
    send = sender if folder is None else ModelCache(folder, mode, _session(config), sender)
    assert send is not None
    return OpenAIAgentFactory(sampling, send, _prices(config).get(sampling.model))


def _require_openai(agent: str, extra: str) -> None:
    if importlib.util.find_spec("openai") is None:
        raise pytest.UsageError(f"--granularity-agent={agent} needs the openai package: {install_command([extra])}")


def _tool_choice(config: pytest.Config) -> str | None:
    return _choice(config, "tool-choice", TOOL_CHOICES)


def _choice(config: pytest.Config, name: str, choices: tuple[str, ...]) -> str | None:
    value = _value(config, name)
    if value is not None and value not in choices:
        raise pytest.UsageError(f"--granularity-{name}: '{value}' is not one of {', '.join(choices)}")
    return value


def _retries(config: pytest.Config) -> int:
    value = _number(config, "model-retries")
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
