"""Configuration loading.

Settings are read from ``defaults.json`` shipped next to this module and may
be overridden by a user-supplied JSON file and/or a mapping of explicit
overrides (highest precedence). Unknown keys are rejected so that a typo in
a config file fails loudly instead of being silently ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError, ValidationError
from .models import Location, to_decimal

DEFAULT_REORDER_THRESHOLD = 12
DEFAULT_RESERVATION_TTL_MINUTES = 30
DEFAULT_CURRENCY = "EUR"
DEFAULTS_PATH = Path(__file__).with_name("defaults.json")
SUPPORTED_BACKENDS = ("memory", "json")


@dataclass(frozen=True)
class Settings:
    """Warehouse-wide settings used by :class:`inventory.service.InventoryService`."""

    reorder_threshold: int = DEFAULT_REORDER_THRESHOLD
    reservation_ttl_minutes: int = DEFAULT_RESERVATION_TTL_MINUTES
    currency: str = DEFAULT_CURRENCY
    tax_rate: Decimal = Decimal("0.20")
    default_location: str = "A-01-01"
    backend: str = "memory"
    data_path: str | None = None


SETTING_NAMES = frozenset(f.name for f in fields(Settings))


def _read_json_object(path: Path) -> dict[str, Any]:
    """Read ``path`` and return its top-level JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must contain a JSON object, got {type(data).__name__}"
        )
    return data


def _require_int(key: str, value: Any, source: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} in {source} must be an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{key} in {source} must be at least {minimum}, got {value}")
    return value


def _coerce(key: str, value: Any, source: str) -> Any:
    """Validate and convert one raw setting value read from ``source``."""
    if key == "reorder_threshold":
        return _require_int(key, value, source, minimum=0)
    if key == "reservation_ttl_minutes":
        return _require_int(key, value, source, minimum=1)
    if key == "currency":
        if not isinstance(value, str) or len(value) != 3 or not value.isalpha():
            raise ConfigError(f"currency in {source} must be a 3-letter ISO code, got {value!r}")
        return value.upper()
    if key == "tax_rate":
        try:
            rate = to_decimal(value, "tax_rate")
        except ValidationError as exc:
            raise ConfigError(f"{exc} (in {source})") from None
        if not Decimal(0) <= rate < Decimal(1):
            raise ConfigError(f"tax_rate in {source} must be in [0, 1), got {value!r}")
        return rate
    if key == "default_location":
        try:
            return Location.parse(value).code
        except (ValidationError, AttributeError):
            raise ConfigError(
                f"default_location in {source} is not a valid location code: {value!r}"
            ) from None
    if key == "backend":
        if value not in SUPPORTED_BACKENDS:
            raise ConfigError(
                f"backend in {source} must be one of {', '.join(SUPPORTED_BACKENDS)}, got {value!r}"
            )
        return value
    if key == "data_path":
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"data_path in {source} must be a string or null, got {value!r}")
        return value
    raise ConfigError(f"unknown setting {key!r} in {source}")  # pragma: no cover


def _merge(target: dict[str, Any], data: Mapping[str, Any], source: str) -> None:
    for key, value in data.items():
        if key not in SETTING_NAMES:
            raise ConfigError(
                f"unknown setting {key!r} in {source}; valid settings are: "
                + ", ".join(sorted(SETTING_NAMES))
            )
        target[key] = _coerce(key, value, source)


def load_settings(
    path: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Load settings from the packaged defaults, an optional file and overrides.

    Later sources win: packaged ``defaults.json`` < ``path`` < ``overrides``.
    Raises :class:`~inventory.errors.ConfigError` for missing files, invalid
    JSON, unknown keys or invalid values.
    """
    merged: dict[str, Any] = {}
    _merge(merged, _read_json_object(Path(DEFAULTS_PATH)), str(DEFAULTS_PATH))
    if path is not None:
        user_path = Path(path)
        _merge(merged, _read_json_object(user_path), str(user_path))
    if overrides:
        _merge(merged, overrides, "overrides")
    settings = Settings(**merged)
    if settings.backend == "json" and not settings.data_path:
        raise ConfigError("the 'json' backend requires data_path to be set")
    return settings
