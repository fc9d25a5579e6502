import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.config import load_config
from ledgerflow.pipeline import PipelineContext, build_default_pipeline
from ledgerflow.records import Transaction

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def readme_config_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        data = json.loads(block, parse_float=Decimal)
        if isinstance(data, dict) and "rates" in data:
            return data
    raise AssertionError("README.md has no JSON configuration example")


def test_shipped_limit_is_10000():
    assert load_config(ROOT / "ledgerflow.json").max_amount == Decimal("10000")


def test_pipeline_accepts_up_to_the_new_limit():
    config = load_config(ROOT / "ledgerflow.json")
    batch = [
        Transaction("BIG", date(2024, 5, 2), Decimal("-7500.00"), description="Rent deposit"),
        Transaction("EDGE", date(2024, 5, 3), Decimal("10000"), description="Savings transfer"),
        Transaction("HUGE", date(2024, 5, 4), Decimal("-10000.01"), description="Car"),
    ]
    result = build_default_pipeline(config).run(batch, PipelineContext(config=config))
    assert [t.txn_id for t in result.transactions] == ["BIG", "EDGE"]
    assert [t.txn_id for t in result.context.rejected] == ["HUGE"]


def test_readme_example_in_sync():
    assert Decimal(str(readme_config_example()["ledgerflow"]["max_amount"])) == Decimal("10000")
