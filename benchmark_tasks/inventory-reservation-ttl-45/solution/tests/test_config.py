import json
from decimal import Decimal
from unittest.mock import patch

import pytest

import inventory.config as config
from inventory.errors import ConfigError


def write_json(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_packaged_defaults_match_module_constants():
    settings = config.load_settings()
    assert settings.reorder_threshold == config.DEFAULT_REORDER_THRESHOLD
    assert settings.reservation_ttl_minutes == config.DEFAULT_RESERVATION_TTL_MINUTES
    assert settings.currency == config.DEFAULT_CURRENCY
    assert settings.tax_rate == Decimal("0.20")
    assert settings == config.Settings()


def test_user_file_overrides_defaults(tmp_path):
    path = write_json(tmp_path / "site.json", {"reorder_threshold": 25, "currency": "chf"})
    settings = config.load_settings(path)
    assert settings.reorder_threshold == 25
    assert settings.currency == "CHF"
    assert settings.reservation_ttl_minutes == config.DEFAULT_RESERVATION_TTL_MINUTES == 45


def test_overrides_win_over_file(tmp_path):
    path = write_json(tmp_path / "site.json", {"reorder_threshold": 25})
    settings = config.load_settings(path, {"reorder_threshold": 3})
    assert settings.reorder_threshold == 3


def test_unknown_key_is_reported_with_source(tmp_path):
    path = write_json(tmp_path / "site.json", {"reorder_treshold": 5})
    with pytest.raises(ConfigError, match=r"unknown setting 'reorder_treshold' in .*site\.json"):
        config.load_settings(path)


def test_missing_file_raises_config_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        config.load_settings(tmp_path / "nope.json")


def test_invalid_json_reports_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "currency": "EUR";\n}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON.*line 2"):
        config.load_settings(path)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"reorder_threshold": -1}, "must be at least 0"),
        ({"reservation_ttl_minutes": 0}, "must be at least 1"),
        ({"reorder_threshold": True}, "must be an integer"),
        ({"tax_rate": "1.5"}, r"must be in \[0, 1\)"),
        ({"default_location": "garage"}, "not a valid location code"),
        ({"backend": "sqlite"}, "must be one of memory, json"),
        ({"currency": "EURO"}, "3-letter ISO code"),
    ],
)
def test_invalid_values_are_rejected(overrides, message):
    with pytest.raises(ConfigError, match=message):
        config.load_settings(overrides=overrides)


def test_json_backend_requires_data_path():
    with pytest.raises(ConfigError, match="requires data_path"):
        config.load_settings(overrides={"backend": "json"})


def test_defaults_path_can_be_replaced(tmp_path):
    defaults = write_json(tmp_path / "defaults.json", {"reorder_threshold": 99})
    with patch("inventory.config.DEFAULTS_PATH", defaults):
        settings = config.load_settings()
    assert settings.reorder_threshold == 99
    assert settings.currency == config.DEFAULT_CURRENCY


def test_non_object_json_is_rejected(tmp_path):
    path = write_json(tmp_path / "list.json", [1, 2, 3])
    with pytest.raises(ConfigError, match="must contain a JSON object, got list"):
        config.load_settings(path)
