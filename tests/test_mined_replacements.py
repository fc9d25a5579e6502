"""A text replacement mined from a history: recognised in files of any kind, proved on its sources, used later."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from evolution_tasks import as_bytes, attempt_later, mine_history

from pytest_granularity.evolution.differing import changed_tokens
from pytest_granularity.evolution.engine_writer import REPLACE
from pytest_granularity.evolution.replaced import Replaced, derive_arguments, pieces, replaced
from pytest_granularity.macros import MacroRegistry

PROJECT = {
    "app/__init__.py": '__version__ = "1.2.0"\n',
    "app/rates.py": "import json\nfrom pathlib import Path\n\n\n"
    "def rate(code):\n    return json.loads(Path('rates.json').read_text())[code]\n",
    "rates.json": '{"USD": "0.92", "GBP": "1.17", "CHF": "1.04"}\n',
    "README.md": "# app\n\nRates: USD 0.92, GBP 1.17, CHF 1.04.\n\n    pip install app==1.2.0\n",
    "tests/test_rates.py": "def test_nothing_here():\n    assert True\n",
}
CHANGES = {
    "fix-usd": ("0.92", "0.93", "USD", ["rates.json", "README.md"]),
    "fix-chf": ("1.04", "1.05", "CHF", ["rates.json", "README.md"]),
    "fix-gbp": ("1.17", "1.18", "GBP", ["rates.json", "README.md"]),
}


def _write_task(root: Path, task_id: str) -> Path:
    """A task that corrects one exchange rate in the shipped rates and the README, which a verifier checks."""
    old, new, code, files = CHANGES[task_id]
    folder = root / task_id
    for rel, content in PROJECT.items():
        (folder / "fixture" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "fixture" / rel).write_text(content)
    for rel in files:
        (folder / "solution" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "solution" / rel).write_text(PROJECT[rel].replace(old, new))
    (folder / "verifier").mkdir()
    (folder / "verifier" / f"test_{task_id.replace('-', '_')}.py").write_text(
        "from pathlib import Path\n\nfrom app.rates import rate\n\n\n"
        f"def test_rate():\n    assert rate({code!r}) == {new!r}\n\n\n"
        f"def test_readme():\n    assert '{code} {new}' in Path('README.md').read_text()\n"
    )
    data = {
        "id": task_id,
        "family": "multi_file",
        "prompt": f"The {code} rate was typed as {old} instead of {new} in rates.json and README.md. Fix both.",
        "fixture": "./fixture",
        "solution": {"overlay": "solution/"},
        "verifier": {"tests": "verifier/", "timeout_seconds": 60},
        "tests": ["tests"],
    }
    (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def test_one_text_replaced_in_files_of_any_kind_is_recognised() -> None:
    before = as_bytes(PROJECT)
    after = {**before, **{p: before[p].replace(b"1.2.0", b"1.3.0") for p in ("app/__init__.py", "README.md")}}
    assert replaced(before, after) == Replaced(("README.md", "app/__init__.py"), "1.2.0", "1.3.0")
    assert pieces(before, after) == [{"files": ["README.md", "app/__init__.py"], "old": "1.2.0", "new": "1.3.0"}]


def test_a_lone_file_replaces_its_line_where_the_token_recurs() -> None:
    before = {"a.py": b"RETRIES = 3\nTIMEOUT = 3\n"}
    assert replaced(before, {"a.py": b"RETRIES = 5\nTIMEOUT = 3\n"}) == Replaced(
        ("a.py",), "RETRIES = 3", "RETRIES = 5"
    )
    two = {**before, "b.txt": b"retries: 3\ntimeout: 3\n"}
    after = {"a.py": b"RETRIES = 5\nTIMEOUT = 3\n", "b.txt": b"retries: 5\ntimeout: 3\n"}
    assert replaced(two, after) is None, "files whose lines differ make no one replacement"


def test_changes_that_are_not_one_replacement_are_refused() -> None:
    before = as_bytes(PROJECT)
    assert replaced(before, before) is None, "no change"
    both = {**before, "README.md": before["README.md"].replace(b"0.92", b"0.93").replace(b"1.2.0", b"1.3.0")}
    assert replaced(before, both) is None, "two edits in one file"
    added = {**before, "rates.json": before["rates.json"].replace(b"0.92", b"0.93"), "NEW.md": b"new\n"}
    assert replaced(before, added) is None and pieces(before, added) == [], "a file added"
    mixed = {
        **before,
        "rates.json": before["rates.json"].replace(b"0.92", b"0.93"),
        "README.md": before["README.md"].replace(b"0.92", b"0.93"),
        "app/__init__.py": before["app/__init__.py"].replace(b"1.2.0", b"1.3.0"),
    }
    assert replaced(before, mixed) is None, "files that replace different texts"
    assert pieces(before, mixed) == [{"files": ["README.md", "rates.json"], "old": "0.92", "new": "0.93"}]


def test_changed_tokens_of_a_whole_line() -> None:
    assert changed_tokens('Q = Decimal("0.1")', 'Q = Decimal("0.01")') == ("0.1", "0.01")
    assert changed_tokens("x = 3 + 3", "x = 3 + 4") is None, "the token occurs twice"


def test_only_stated_replacements_are_derived() -> None:
    files = as_bytes(PROJECT)
    stated = "The GBP rate was typed as 1.17 instead of 1.18 in rates.json and README.md."
    assert derive_arguments(stated, files)[0] == {"files": ["rates.json", "README.md"], "old": "1.17", "new": "1.18"}
    assert derive_arguments("Rates in rates.json look odd: 1.17 and 1.18 appear in reports.", files) == []


def test_a_stated_replacement_that_leaves_the_text_in_a_named_file_is_not_derived() -> None:
    files = as_bytes({"app/core.py": "def stem(w):\n    return w\n", "app/use.py": "x = stem('a') + stem('b')\n"})
    prompt = "Rename `stem` to `stem_word` everywhere: app/core.py and app/use.py."
    assert derive_arguments(prompt, files) == [], "the name stays in app/use.py: a rename only begun"
    assert derive_arguments("Rename `stem` to `stem_word` in app/core.py.", files)[0]["files"] == ["app/core.py"]


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("replacements")
    return root, mine_history(root, _write_task, ("fix-usd", "fix-chf"))


def test_two_replacements_in_a_history_give_a_macro_proved_on_both(mined) -> None:
    root, summary = mined
    assert summary["replacements"] == 2 and summary["unused"] == {}
    (kept,) = [s for s in summary["shapes"] if s["kept"]]
    assert kept["name"] == REPLACE.name and kept["tasks"] == ["fix-chf", "fix-usd"]
    macro = MacroRegistry.load([root / "macros"], builtin=False).get(REPLACE.name)
    assert macro is not None and macro.contract["probation"] and macro.pieces is not None


def test_the_mined_replacement_solves_a_later_one_alone(mined) -> None:
    root, _ = mined
    result = attempt_later(root, _write_task, "fix-gbp")
    assert (result.solved, result.macro, result.harmful, result.coverage) == (True, REPLACE.name, False, 1.0)
