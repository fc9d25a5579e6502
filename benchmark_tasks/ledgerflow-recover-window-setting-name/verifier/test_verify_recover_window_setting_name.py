import ast
import json
import re
from decimal import Decimal
from pathlib import Path

import ledgerflow
from ledgerflow.cli import main
from ledgerflow.config import load_config, parse_config

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def test_shipped_config_loads():
    config = load_config(ROOT / "ledgerflow.json")
    assert config.dedupe_window_days == 3
    assert config.max_amount == Decimal("5000")


def test_cli_with_shipped_config(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("id,date,amount,description\nA,2024-01-01,5,Gift\n", encoding="utf-8")
    assert main([str(path), "--config", str(ROOT / "ledgerflow.json")]) == 0


def test_readme_example_is_a_valid_config():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    examples = [json.loads(b, parse_float=Decimal) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    assert examples
    for example in examples:
        assert parse_config(example).dedupe_window_days == 3


def test_docstring_example_is_a_valid_config():
    doc = ast.get_docstring(ast.parse((ROOT / "ledgerflow" / "config.py").read_text(encoding="utf-8")))
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "{")
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "}")
    example = json.loads("\n".join(lines[start:end + 1]))
    assert parse_config(example).dedupe_window_days == 3
