import json
from decimal import Decimal
from pathlib import Path

import pytest

import ledgerflow
from ledgerflow.config import LedgerConfig, load_config, parse_config
from ledgerflow.errors import ConfigError
from ledgerflow.pipeline import run_file

ROOT = Path(ledgerflow.__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "transactions.csv"


def shipped_with(**settings):
    data = json.loads((ROOT / "ledgerflow.json").read_text(encoding="utf-8"), parse_float=Decimal)
    data["ledgerflow"].update(settings)
    return parse_config(data)


def top_spending(config, tmp_path):
    out = tmp_path / "summary.json"
    run_file(SAMPLE, config, summary_json=out)
    return json.loads(out.read_text(encoding="utf-8"))["top_spending"]


def test_default_is_three():
    assert LedgerConfig().top_categories == 3
    assert parse_config({}).top_categories == 3
    assert load_config(ROOT / "ledgerflow.json").top_categories == 3


def test_setting_is_parsed():
    assert parse_config({"ledgerflow": {"top_categories": 5}}).top_categories == 5
    assert parse_config({"ledgerflow": {"top_categories": 0}}).top_categories == 0


def test_setting_is_read_from_a_file(tmp_path):
    path = tmp_path / "cfg.json"
    path.write_text('{"ledgerflow": {"top_categories": 2}}', encoding="utf-8")
    assert load_config(path).top_categories == 2


@pytest.mark.parametrize("bad", [-1, "3", True, 2.5, None])
def test_invalid_values_are_rejected(bad):
    with pytest.raises(ConfigError):
        parse_config({"ledgerflow": {"top_categories": bad}})


def test_run_file_uses_the_setting(tmp_path):
    default = top_spending(shipped_with(), tmp_path)
    assert [entry["category"] for entry in default] == ["housing", "travel", "groceries"]
    one = top_spending(shipped_with(top_categories=1), tmp_path)
    assert one == [{"category": "housing", "spending": "3800.00"}]
    assert len(top_spending(shipped_with(top_categories=5), tmp_path)) == 5
    assert top_spending(shipped_with(top_categories=0), tmp_path) == []


def test_readme_documents_the_setting():
    assert "top_categories" in (ROOT / "README.md").read_text(encoding="utf-8")
