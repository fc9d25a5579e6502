"""The macro corpus derives its calls from a package's code, the same calls every time."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from corpus_calls import derive
from macro_corpus import reason_label

FILES = {
    "src/lib/__init__.py": "from lib.core import run\n",
    "src/lib/core.py": "def run(x):\n    return x + 1\n\n\ndef other():\n    return 0\n\n\ndef again():\n    return 0\n",
    "src/lib/inner/__init__.py": "",
    "src/lib/inner/deep.py": "class Deep:\n    pass\n",
    "tests/test_core.py": "def test_run():\n    pass\n",
    "docs/conf.py": "project = 'lib'\n",
}


def calls_for(tmp_path: Path):
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return derive("lib", tmp_path, moves=24, others=5)


def test_moves_cover_modules_and_subpackages_but_not_tests_or_docs(tmp_path):
    moves = [(c.args["source"], c.args["destination"]) for c in calls_for(tmp_path) if c.macro == "move_module"]
    assert moves == [
        ("src/lib/inner", "src/lib/relocated/inner"),
        ("src/lib/core.py", "src/lib/relocated/core.py"),
        ("src/lib/core.py", "src/lib/core_renamed.py"),
        ("src/lib/inner/deep.py", "src/lib/inner/relocated/deep.py"),
        ("src/lib/inner/deep.py", "src/lib/inner/deep_renamed.py"),
    ]


def test_replacements_keep_behaviour_or_must_be_refused(tmp_path):
    replacements = [c.args for c in calls_for(tmp_path) if c.macro == "replace_and_verify"]
    assert replacements == [
        {"files": ["src/lib/core.py"], "old": "    return x + 1", "new": "    return (x + 1)"},
        {"files": ["src/lib/core.py"], "old": "    return 0", "new": "    return 0  # edited"},
    ]


def test_derivation_is_deterministic(tmp_path):
    assert [c.label for c in calls_for(tmp_path)] == [c.label for c in calls_for(tmp_path)]


def test_refusal_reasons_are_counted_by_kind():
    reason = "README.md (not Python) refers to lib.core; x; src/lib/__init__.py: reads the name core, bound only as a side effect of importing the submodule lib.core"
    assert reason_label(reason) == [
        "a non-Python file names the module (README.md)",
        "the parent's __init__ reads its name, bound only by importing it",
    ]


def test_the_side_by_side_table_counts_each_tool_on_the_same_moves():
    from corpus_packages import Package
    from macro_corpus import Result, side_by_side

    def result(tool, verdict, seconds):
        return Result("lib move_module x", "lib", "move_module", "k", verdict, "", tool, seconds)

    results = [result("macro", "correct", 1.0), result("macro", "refused", 3.0), result("rope", "defect", 2.0)]
    results.append(result("rope", "correct", 4.0))
    rows = side_by_side([Package("lib", "1.0", "style")], results).splitlines()
    assert rows[2] == "| lib | 2 | 1 / 1 | 1 / 0 | 0 / 1 | 2.00 / 3.00 |"
    assert rows[3] == "| **all** | 2 | 1 / 1 | 1 / 0 | 0 / 1 | 2.00 / 3.00 |"
