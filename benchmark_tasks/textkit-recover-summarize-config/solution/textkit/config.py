"""Load textkit settings from JSON configuration files.

Settings are layered: the dataclass defaults are overridden by the
packaged ``textkit/data/defaults.json``, which is in turn overridden by a
user file given explicitly or through the ``TEXTKIT_CONFIG`` environment
variable.  A user file may set any subset of the options::

    {"width": 80, "extra_stopwords": ["textkit"]}

Public API of textkit.config:

- class ConfigError(): Raised when a configuration file is missing, malformed or invalid.
- class TextkitConfig(width: int, max_slug_length: int, slug_separator: str, top_keywords: int, lowercase: bool, extra_stopwords: tuple[str, ...]): Effective textkit settings.
- def merge_config(base: TextkitConfig, data: Mapping[str, Any], *, source: str='<config>') -> TextkitConfig: Return *base* updated with the options in *data*, validating each one.
- def default_config() -> TextkitConfig: Return the configuration defined by the packaged ``defaults.json``.
- def load_config(path: str | Path | None=None, *, environ: Mapping[str, str] | None=None) -> TextkitConfig: Load the effective configuration.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from textkit.analysis.keywords import DEFAULT_TOP_N
from textkit.slugs import DEFAULT_SEPARATOR, MAX_SLUG_LENGTH
from textkit.wrap import DEFAULT_WIDTH

CONFIG_ENV_VAR = "TEXTKIT_CONFIG"
DEFAULTS_FILENAME = "defaults.json"


class ConfigError(ValueError):
    """Raised when a configuration file is missing, malformed or invalid."""


@dataclass(frozen=True)
class TextkitConfig:
    """Effective textkit settings."""

    width: int = DEFAULT_WIDTH
    max_slug_length: int = MAX_SLUG_LENGTH
    slug_separator: str = DEFAULT_SEPARATOR
    top_keywords: int = DEFAULT_TOP_N
    lowercase: bool = True
    extra_stopwords: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the settings as JSON-compatible data."""
        data = asdict(self)
        data["extra_stopwords"] = list(self.extra_stopwords)
        return data


_OPTION_TYPES: dict[str, type] = {
    "width": int,
    "max_slug_length": int,
    "slug_separator": str,
    "top_keywords": int,
    "lowercase": bool,
    "extra_stopwords": list,
}
_POSITIVE_OPTIONS = frozenset({"width", "max_slug_length", "top_keywords"})


def _check_option(name: str, value: Any, source: str) -> Any:
    expected = _OPTION_TYPES[name]
    if expected is int:
        valid = isinstance(value, int) and not isinstance(value, bool)
    else:
        valid = isinstance(value, expected)
    if not valid:
        raise ConfigError(
            f"{source}: option {name!r} must be of type {expected.__name__}, "
            f"got {type(value).__name__}"
        )
    if name in _POSITIVE_OPTIONS and value < 1:
        raise ConfigError(f"{source}: option {name!r} must be at least 1, got {value}")
    if name == "slug_separator" and not value:
        raise ConfigError(f"{source}: option 'slug_separator' must not be empty")
    if name == "extra_stopwords":
        if not all(isinstance(word, str) for word in value):
            raise ConfigError(f"{source}: option 'extra_stopwords' must be a list of strings")
        return tuple(word.lower() for word in value)
    return value


def merge_config(
    base: TextkitConfig, data: Mapping[str, Any], *, source: str = "<config>"
) -> TextkitConfig:
    """Return *base* updated with the options in *data*, validating each one."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{source}: expected a JSON object at the top level, got {type(data).__name__}"
        )
    unknown = sorted(set(data) - set(_OPTION_TYPES))
    if unknown:
        raise ConfigError(f"{source}: unknown option(s): {', '.join(unknown)}")
    updates = {name: _check_option(name, value, source) for name, value in data.items()}
    return replace(base, **updates)


def _parse_json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc


def default_config() -> TextkitConfig:
    """Return the configuration defined by the packaged ``defaults.json``."""
    resource = resources.files("textkit") / "data" / DEFAULTS_FILENAME
    source = f"textkit/data/{DEFAULTS_FILENAME}"
    data = _parse_json(resource.read_text(encoding="utf-8"), source)
    return merge_config(TextkitConfig(), data, source=source)


def load_config(
    path: str | Path | None = None, *, environ: Mapping[str, str] | None = None
) -> TextkitConfig:
    """Load the effective configuration.

    *path* defaults to the file named by ``$TEXTKIT_CONFIG`` (looked up in
    *environ*, which defaults to :data:`os.environ`); without either, the
    packaged defaults are returned.
    """
    env = os.environ if environ is None else environ
    if path is None:
        path = env.get(CONFIG_ENV_VAR) or None
    config = default_config()
    if path is None:
        return config
    config_path = Path(path)
    try:
        text = config_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {config_path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {config_path}: {exc.strerror}") from exc
    return merge_config(config, _parse_json(text, str(config_path)), source=str(config_path))
