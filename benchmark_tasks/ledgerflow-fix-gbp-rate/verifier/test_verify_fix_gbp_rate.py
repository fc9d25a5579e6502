import json
import re
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.config import load_config, parse_config
from ledgerflow.pipeline import run_file

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def readme_config_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        data = json.loads(block, parse_float=Decimal)
        if isinstance(data, dict) and "rates" in data:
            return data
    raise AssertionError("README.md has no JSON configuration example")


def test_shipped_config_gbp_rate():
    config = load_config(ROOT / "ledgerflow.json")
    assert config.rates.to_base("GBP") == Decimal("1.17")
    assert config.rates.to_base("USD") == Decimal("0.92")


def test_sample_gbp_payment_is_converted_correctly():
    result = run_file(ROOT / "data" / "transactions.csv", load_config(ROOT / "ledgerflow.json"))
    by_id = {txn.txn_id: txn for txn in result.transactions}
    assert (by_id["T007"].amount, by_id["T007"].currency) == (Decimal("-27.03"), "EUR")


def test_readme_example_uses_the_same_rate():
    example = readme_config_example()
    assert Decimal(str(example["rates"]["GBP"])) == Decimal("1.17")
    parse_config(example)
