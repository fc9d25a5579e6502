"""Load hookshot settings from an INI file.

Example ``hookshot.ini``::

    [delivery]
    max_retries = 3
    backoff_base = 0.25
    timeout = 5
    log_capacity = 1000

    [signing]
    secret_env = HOOKSHOT_SECRET
    tolerance = 300

    [endpoints]
    order.** = https://hooks.example.com/orders

Signing secrets are never stored in the file itself: ``secret_env`` names an
environment variable holding one secret, or several separated by commas
while a secret is being rotated.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import hookshot.retry as retry_mod
from hookshot.delivery_log import DEFAULT_LOG_CAPACITY
from hookshot.http import DEFAULT_USER_AGENT
from hookshot.signing import DEFAULT_TOLERANCE_SECONDS

DEFAULT_CONFIG_FILENAME = "hookshot.ini"
DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_SECRET_ENV = "HOOKSHOT_SECRET"
KNOWN_SECTIONS = ("delivery", "signing", "endpoints")


class ConfigError(ValueError):
    """Raised when the configuration file is missing or invalid."""


@dataclass(frozen=True)
class Settings:
    """Validated hookshot settings."""

    retry_policy: retry_mod.RetryPolicy = field(default_factory=retry_mod.RetryPolicy)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    user_agent: str = DEFAULT_USER_AGENT
    signing_secrets: tuple[str, ...] = ()
    tolerance: int = DEFAULT_TOLERANCE_SECONDS
    endpoints: Mapping[str, str] = field(default_factory=dict)
    log_capacity: int = DEFAULT_LOG_CAPACITY


def _get_int(parser: configparser.ConfigParser, section: str, option: str, default: int) -> int:
    raw = parser.get(section, option, fallback=None)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(
            f"invalid value for [{section}] {option}: expected an integer, got {raw!r}"
        ) from None


def _get_float(
    parser: configparser.ConfigParser, section: str, option: str, default: float
) -> float:
    raw = parser.get(section, option, fallback=None)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(
            f"invalid value for [{section}] {option}: expected a number, got {raw!r}"
        ) from None


def _read_secrets(parser: configparser.ConfigParser, environ: Mapping[str, str]) -> tuple[str, ...]:
    variable = parser.get("signing", "secret_env", fallback=DEFAULT_SECRET_ENV)
    raw = environ.get(variable, "")
    return tuple(secret.strip() for secret in raw.split(",") if secret.strip())


def _read_endpoints(parser: configparser.ConfigParser, source: str) -> dict[str, str]:
    if not parser.has_section("endpoints"):
        return {}
    endpoints: dict[str, str] = {}
    for pattern, url in parser.items("endpoints"):
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                f"{source}: endpoint for {pattern!r} must be an http(s) URL, got {url!r}"
            )
        endpoints[pattern] = url
    return endpoints


def parse_settings(
    parser: configparser.ConfigParser,
    *,
    environ: Mapping[str, str],
    source: str = "<string>",
) -> Settings:
    """Turn an already-read :class:`configparser.ConfigParser` into :class:`Settings`."""
    for section in parser.sections():
        if section not in KNOWN_SECTIONS:
            raise ConfigError(
                f"{source}: unknown section [{section}]; expected one of "
                + ", ".join(f"[{name}]" for name in KNOWN_SECTIONS)
            )
    try:
        policy = retry_mod.RetryPolicy(
            max_retries=_get_int(parser, "delivery", "max_retries", retry_mod.DEFAULT_MAX_RETRIES),
            backoff_base=_get_float(
                parser, "delivery", "backoff_base", retry_mod.DEFAULT_BACKOFF_BASE
            ),
            backoff_factor=_get_float(
                parser, "delivery", "backoff_factor", retry_mod.DEFAULT_BACKOFF_FACTOR
            ),
            max_delay=_get_float(parser, "delivery", "max_delay", retry_mod.DEFAULT_MAX_DELAY),
            jitter=_get_float(parser, "delivery", "jitter", 0.0),
        )
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(f"{source}: invalid [delivery] settings: {exc}") from exc

    timeout = _get_float(parser, "delivery", "timeout", DEFAULT_TIMEOUT_SECONDS)
    if timeout <= 0:
        raise ConfigError(f"{source}: [delivery] timeout must be positive, got {timeout}")
    log_capacity = _get_int(parser, "delivery", "log_capacity", DEFAULT_LOG_CAPACITY)
    if log_capacity < 1:
        raise ConfigError(
            f"{source}: [delivery] log_capacity must be at least 1, got {log_capacity}"
        )
    tolerance = _get_int(parser, "signing", "tolerance", DEFAULT_TOLERANCE_SECONDS)
    if tolerance < 0:
        raise ConfigError(f"{source}: [signing] tolerance must not be negative, got {tolerance}")

    return Settings(
        retry_policy=policy,
        timeout=timeout,
        user_agent=parser.get("delivery", "user_agent", fallback=DEFAULT_USER_AGENT),
        signing_secrets=_read_secrets(parser, environ),
        tolerance=tolerance,
        endpoints=_read_endpoints(parser, source),
        log_capacity=log_capacity,
    )


def _new_parser() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep patterns' case
    return parser


def loads_config(
    text: str, *, environ: Mapping[str, str] | None = None, source: str = "<string>"
) -> Settings:
    """Parse settings from INI *text*."""
    parser = _new_parser()
    try:
        parser.read_string(text, source=source)
    except configparser.Error as exc:
        raise ConfigError(f"could not parse {source}: {exc}") from exc
    return parse_settings(parser, environ=os.environ if environ is None else environ, source=source)


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Load settings from *path*, or from ``hookshot.ini`` in the working directory."""
    config_path = Path(path) if path is not None else Path.cwd() / DEFAULT_CONFIG_FILENAME
    if not config_path.is_file():
        raise ConfigError(f"config file not found: {config_path}")
    return loads_config(
        config_path.read_text(encoding="utf-8"), environ=environ, source=str(config_path)
    )
