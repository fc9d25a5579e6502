from unittest.mock import patch

import pytest

import hookshot.retry
from hookshot.config import (
    DEFAULT_TIMEOUT_SECONDS,
    ConfigError,
    Settings,
    load_config,
    loads_config,
)
from hookshot.http import DEFAULT_USER_AGENT
from hookshot.signing import DEFAULT_TOLERANCE_SECONDS


def test_load_example_config(config_path):
    settings = load_config(config_path, environ={"HOOKSHOT_SECRET": "new-secret, old-secret"})
    assert settings.retry_policy == hookshot.retry.RetryPolicy(
        max_retries=3, backoff_base=0.25, backoff_factor=2.0, max_delay=30.0
    )
    assert settings.timeout == 5.0
    assert settings.user_agent == "hookshot-example/1.0"
    assert settings.signing_secrets == ("new-secret", "old-secret")
    assert settings.tolerance == 600
    assert settings.endpoints == {
        "order.**": "https://hooks.example.com/orders",
        "customer.*": "https://crm.example.com/hooks?source=hookshot",
        "invoice.paid": "https://billing.example.com:8443/webhooks",
    }


def test_missing_secret_variable_means_no_secrets(config_path):
    assert load_config(config_path, environ={}).signing_secrets == ()


def test_empty_config_uses_defaults():
    settings = loads_config("", environ={})
    assert settings == Settings()
    assert settings.retry_policy.max_retries == hookshot.retry.DEFAULT_MAX_RETRIES
    assert settings.timeout == DEFAULT_TIMEOUT_SECONDS
    assert settings.user_agent == DEFAULT_USER_AGENT
    assert settings.tolerance == DEFAULT_TOLERANCE_SECONDS


def test_secret_env_can_be_renamed():
    text = "[signing]\nsecret_env = MY_HOOK_SECRET\n"
    assert loads_config(text, environ={"MY_HOOK_SECRET": "s3"}).signing_secrets == ("s3",)


def test_load_config_defaults_to_file_in_working_directory(tmp_path, monkeypatch):
    (tmp_path / "custom.ini").write_text("[delivery]\nmax_retries = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with patch("hookshot.config.DEFAULT_CONFIG_FILENAME", "custom.ini"):
        settings = load_config(environ={})
    assert settings.retry_policy.max_retries == 1


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(ConfigError, match="config file not found: .*nope.ini"):
        load_config(tmp_path / "nope.ini")


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "[delivery]\nmax_retries = many\n",
            r"\[delivery\] max_retries: expected an integer, got 'many'",
        ),
        ("[delivery]\ntimeout = soon\n", r"\[delivery\] timeout: expected a number, got 'soon'"),
        ("[delivery]\ntimeout = 0\n", r"\[delivery\] timeout must be positive, got 0.0"),
        (
            "[delivery]\nmax_retries = -2\n",
            r"invalid \[delivery\] settings: max_retries must be >= 0",
        ),
        ("[signing]\ntolerance = -1\n", r"\[signing\] tolerance must not be negative"),
        ("[deliveries]\n", r"unknown section \[deliveries\]"),
        ("[endpoints]\norder.* = ftp://x\n", "endpoint for 'order.\\*' must be an http\\(s\\) URL"),
        ("max_retries = 3\n", "could not parse <string>"),
    ],
)
def test_invalid_configs_are_rejected(text, message):
    with pytest.raises(ConfigError, match=message):
        loads_config(text, environ={})
