import json
from decimal import Decimal

import pytest

from ledgerflow.config import DEFAULT_CONFIG_NAME, LedgerConfig, load_config, parse_config
from ledgerflow.errors import ConfigError
from ledgerflow.transforms import CategoryRule


def test_load_shipped_config(config_path):
    assert config_path.name == DEFAULT_CONFIG_NAME
    config = load_config(config_path)
    assert config.base_currency == "EUR"
    assert config.rates.to_base("USD") == Decimal("0.92")
    assert config.currencies == ["CHF", "EUR", "GBP", "USD"]
    assert config.max_amount == Decimal("10000")
    assert config.category_rules[0] == CategoryRule("salary", "income")
    assert config.dedupe_window_days == 3
    assert config.business_days is False


def test_defaults():
    config = parse_config({})
    assert config == LedgerConfig()
    assert config.currencies == ["EUR"]
    assert config.delimiter == ","


def test_numbers_are_parsed_exactly(tmp_path):
    path = tmp_path / "cfg.json"
    path.write_text('{"rates": {"usd": 0.1}, "ledgerflow": {"max_amount": 250}}', encoding="utf-8")
    config = load_config(path)
    assert config.rates.to_base("USD") == Decimal("0.1")
    assert config.max_amount == Decimal("250")


def test_base_currency_rate_must_be_one():
    assert parse_config({"rates": {"EUR": "1"}}).rates.rates == {}
    with pytest.raises(ConfigError, match="rate for the base currency EUR must be 1"):
        parse_config({"rates": {"EUR": "1.1"}})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"extras": {}}, "unknown section\\(s\\): extras"),
        ({"ledgerflow": {"base_curency": "EUR"}}, "unknown setting\\(s\\) in 'ledgerflow': base_curency"),
        ({"ledgerflow": {"base_currency": "EURO"}}, "three-letter code"),
        ({"ledgerflow": {"delimiter": ";;"}}, "single character"),
        ({"ledgerflow": {"dedupe_window_days": -1}}, "non-negative integer"),
        ({"ledgerflow": {"business_days": "yes"}}, "true or false"),
        ({"ledgerflow": {"max_amount": "0"}}, "max_amount must be positive"),
        ({"rates": {"USD": "abc"}}, "rate for USD is not a valid number"),
        ({"rates": {"USD": "-1"}}, "must be positive"),
        ({"rates": []}, "'rates' must be an object"),
        ({"categories": [{"pattern": "x"}]}, "category rule #1 needs both"),
        ({"categories": [{"pattern": "", "category": "x"}]}, "category rule #1: category rule pattern"),
    ],
)
def test_invalid_settings(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(data, source="test.json")


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid JSON in"):
        load_config(bad)


def test_error_mentions_source(tmp_path):
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps({"ledgerflow": {"delimiter": 5}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ledger\.json: delimiter"):
        load_config(path)
