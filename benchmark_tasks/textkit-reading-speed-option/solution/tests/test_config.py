import json

import pytest

from textkit.analysis.stats import WORDS_PER_MINUTE
from textkit.config import (
    CONFIG_ENV_VAR,
    ConfigError,
    TextkitConfig,
    default_config,
    load_config,
    merge_config,
)
from textkit.slugs import MAX_SLUG_LENGTH
from textkit.wrap import DEFAULT_WIDTH


def test_packaged_defaults_match_module_constants():
    config = default_config()
    assert config == TextkitConfig()
    assert config.width == DEFAULT_WIDTH
    assert config.max_slug_length == MAX_SLUG_LENGTH
    assert config.words_per_minute == WORDS_PER_MINUTE


def test_load_config_without_path_or_env_returns_defaults():
    assert load_config(environ={}) == default_config()


def test_load_config_overrides_selected_options(config_file):
    path = config_file('{"width": 40, "extra_stopwords": ["Foo", "bar"]}')
    config = load_config(path, environ={})
    assert config.width == 40
    assert config.extra_stopwords == ("foo", "bar")
    assert config.max_slug_length == MAX_SLUG_LENGTH


def test_load_config_reads_path_from_environment(config_file):
    path = config_file('{"top_keywords": 3}')
    assert load_config(environ={CONFIG_ENV_VAR: str(path)}).top_keywords == 3


def test_explicit_path_wins_over_environment(config_file, tmp_path):
    path = config_file('{"width": 50}')
    config = load_config(path, environ={CONFIG_ENV_VAR: str(tmp_path / "other.json")})
    assert config.width == 50


def test_missing_config_file(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(ConfigError, match="config file not found: .*missing.json"):
        load_config(missing, environ={})


def test_unreadable_config_path_is_reported(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path, environ={})


def test_invalid_json_reports_position(config_file):
    path = config_file('{\n  "width": 40;\n}')
    with pytest.raises(ConfigError, match=r"invalid JSON at line 2, column 14"):
        load_config(path, environ={})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "expected a JSON object at the top level, got list"),
        ({"colour": "red", "width": 10}, "unknown option\\(s\\): colour"),
        ({"width": "wide"}, "option 'width' must be of type int, got str"),
        ({"width": True}, "option 'width' must be of type int, got bool"),
        ({"top_keywords": 0}, "option 'top_keywords' must be at least 1, got 0"),
        ({"lowercase": 1}, "option 'lowercase' must be of type bool, got int"),
        ({"words_per_minute": 0}, "option 'words_per_minute' must be at least 1, got 0"),
        ({"slug_separator": ""}, "'slug_separator' must not be empty"),
        ({"extra_stopwords": ["ok", 3]}, "must be a list of strings"),
    ],
)
def test_merge_config_validation(data, message):
    with pytest.raises(ConfigError, match=message):
        merge_config(TextkitConfig(), data, source="test.json")


def test_config_as_dict_round_trips_through_json():
    config = TextkitConfig(extra_stopwords=("foo",))
    data = json.loads(json.dumps(config.as_dict()))
    assert merge_config(TextkitConfig(), data) == config
