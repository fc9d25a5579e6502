import importlib.util
import re
from pathlib import Path

import ledgerflow
from ledgerflow.config import load_config
from ledgerflow.pipeline import run_file

ROOT = Path(ledgerflow.__file__).resolve().parent.parent


def test_new_location():
    from ledgerflow.checks.validation import DEFAULT_RULES, ValidationReport, validate

    assert isinstance(validate([], DEFAULT_RULES), ValidationReport)


def test_old_module_is_gone():
    assert importlib.util.find_spec('ledgerflow.validation') is None
    assert not (ROOT / 'ledgerflow/validation.py').exists()


def test_pipeline_still_validates():
    result = run_file(ROOT / "data" / "transactions.csv", load_config(ROOT / "ledgerflow.json"))
    assert [t.txn_id for t in result.context.rejected] == ["T017", "T020"]
    assert not result.context.report.ok


def test_readme_no_longer_points_at_the_old_module():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "ledgerflow.validation" not in text
    assert "ledgerflow/validation.py" not in text


def test_readme_imports_work():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if re.match(r"(from|import) ledgerflow", line):
                exec(line, {})
