"""Items added beside a sibling: found in an edit, generalized across tasks, written by the mined engine,
and measured as the share of a change macro calls made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evolution_tasks import CONFIG, write_task, write_tasks

from pytest_granularity import cli
from pytest_granularity.core.changed_lines import changed_lines
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.evolution.coverage import reference_coverage
from pytest_granularity.evolution.edits import edit_of
from pytest_granularity.evolution.generalize import Instance, acceptable, clusters
from pytest_granularity.evolution.insert_engine import InsertMacro
from pytest_granularity.evolution.insertions import file_insertions, insertion_runs
from pytest_granularity.evolution.rewrites import file_rewrites
from pytest_granularity.evolution.shape import INSERTED, instance_arguments, shape_of
from pytest_granularity.evolution.sources import Source, task_sources
from pytest_granularity.evolution.writer import macro_name
from pytest_granularity.macros import MacroContext

LOCALES = """class Locale:
    names = []


class DutchLocale(Locale):
    names = ["nl"]
    timeframes = {
        "day": "een dag",
        "days": "{0} dagen",
        "month": "een maand",
    }


class GermanLocale(Locale):
    names = ["de"]
    timeframes = {"day": "ein Tag", "days": "{0} Tage", "month": "ein Monat"}
"""
DUTCH_WEEKS = LOCALES.replace(
    '"days": "{0} dagen",\n', '"days": "{0} dagen",\n        "week": "een week",\n        "weeks": "{0} weken",\n'
)
GERMAN_WEEKS = LOCALES.replace('"{0} Tage", ', '"{0} Tage", "week": "eine Woche", "weeks": "{0} Wochen", ')


def test_items_added_beside_a_sibling_are_one_insertion_under_their_path() -> None:
    (found,) = file_insertions(LOCALES, DUTCH_WEEKS) or []
    assert found.before.label == "Items:after"
    path, sibling = found.before.children
    assert [step.label for step in path.children] == ["Scope:class", "Scope:assign", "Container:Dict"]
    assert sibling.children[0].label == 'SimpleString:"days"' and len(found.after.children) == 3
    assert file_insertions(LOCALES, LOCALES.replace('"nl"', '"nl", "nl-nl"')) is not None  # a list element
    assert file_insertions(LOCALES, DUTCH_WEEKS.replace("een dag", "1 dag")) is None  # and a rewrite: not only runs
    (first,) = file_insertions(LOCALES, "import os\n" + LOCALES) or []
    assert first.before.label == "Items:before"  # it opens the module
    both = file_insertions(LOCALES, GERMAN_WEEKS.replace('["nl"]', '["nl", "nl-nl"]')) or []
    assert [len(r.after.children) - 1 for r in both] == [1, 2]  # two runs: a call each


def test_every_run_of_a_larger_change_is_a_piece() -> None:
    mixed = DUTCH_WEEKS.replace("een dag", "1 dag").replace('["de"]', '["de", "de-de"]')
    runs = insertion_runs(LOCALES, mixed)
    assert [len(r.after.children) - 1 for r in runs] == [2, 1]


@pytest.fixture
def locales_macro(tmp_path: Path) -> InsertMacro:
    (dutch,), (german,) = file_insertions(LOCALES, DUTCH_WEEKS) or [], file_insertions(LOCALES, GERMAN_WEEKS) or []
    ((pattern, group),) = clusters(
        [Instance("nl", dutch.before, dutch.after), Instance("de", german.before, german.after)]
    )
    assert len(group) == 2
    shape = shape_of(pattern)
    assert shape is not None and shape.kind == INSERTED and macro_name(shape).startswith("mined_after_dict_")
    assert shape.describe("before") == 'class {p0}(Locale) > timeframes = > Dict: "days": {p1},'
    assert instance_arguments(pattern, 1) == {
        "p0": "GermanLocale",
        "p1": '"{0} Tage"',
        "p2": '"eine Woche"',
        "p3": '"{0} Wochen"',
    }
    shape.write(tmp_path)
    return InsertMacro(tmp_path)


def test_the_engine_adds_the_items_beside_the_one_sibling_laid_out_as_it_is(
    locales_macro: InsertMacro, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "locales.py").write_text(LOCALES)
    workspace = Workspace(root)
    args = {"files": ["locales.py"], "p0": "DutchLocale", "p1": '"{0} dagen"', "p2": '"een week"', "p3": '"{0} weken"'}
    assert locales_macro.preconditions(MacroContext(workspace, args)) == []
    assert locales_macro.run(MacroContext(workspace, args)) == "added 2 item(s) after the sibling in each of 1 file(s)"
    assert (root / "locales.py").read_text() == DUTCH_WEEKS
    assert locales_macro.preconditions(MacroContext(workspace, args)) == ["locales.py has the items already"]
    german = {**args, "p0": "GermanLocale", "p1": '"{0} Tage"', "p2": '"eine Woche"', "p3": '"{0} Wochen"'}
    locales_macro.run(MacroContext(workspace, german))
    both = DUTCH_WEEKS.replace('"{0} Tage", ', '"{0} Tage", "week": "eine Woche", "weeks": "{0} Wochen", ')
    assert (root / "locales.py").read_text() == both  # one line, as its sibling is
    missing = locales_macro.preconditions(MacroContext(workspace, {**args, "p0": "FrenchLocale"}))
    assert missing == [
        'locales.py has `class FrenchLocale(Locale) > timeframes = > Dict: "days": "{0} dagen",` 0 times, not exactly once'
    ]


def test_derive_needs_every_new_value_quoted_and_the_place_named(locales_macro: InsertMacro) -> None:
    files = {"locales.py": LOCALES.encode()}
    stated = 'Add "een week" and "{0} weken" to DutchLocale\'s timeframes.'
    assert locales_macro.derive(stated, files) == [
        {"files": ["locales.py"], "p0": "DutchLocale", "p1": '"{0} dagen"', "p2": '"een week"', "p3": '"{0} weken"'}
    ]
    assert locales_macro.derive("Add week and weeks to the Dutch locale.", files) == []  # the words are not given
    assert locales_macro.derive('Add "een week" and "{0} weken".', files) == []  # to which locale?


def test_coverage_counts_the_changed_lines_a_macro_call_wrote(locales_macro: InsertMacro, tmp_path: Path) -> None:
    root = write_tasks(tmp_path / "tasks")
    (task,) = [s.task for s in task_sources(root / "more-retries")]
    before = {"locales.py": LOCALES.encode(), "README.md": b"Dutch\n"}
    after = {"locales.py": DUTCH_WEEKS.replace("een dag", "1 dag").encode(), "README.md": b"Dutch weeks\n"}
    source = Source(task, before, after, "test")
    assert sum(changed_lines(before, after).values()) == 6  # a line rewritten, two added, README's line rewritten
    covered = reference_coverage(source, {"weeks": locales_macro})
    assert (covered.lines, covered.produced, covered.share) == (6, 2, 0.333)
    assert covered.calls == [
        {
            "macro": "weeks",
            "files": ["locales.py"],
            "p0": "DutchLocale",
            "p1": '"{0} dagen"',
            "p2": '"een week"',
            "p3": '"{0} weken"',
        }
    ]
    assert edit_of(Source(task, before, {**before, "locales.py": DUTCH_WEEKS.encode()}, "t")).files == ("locales.py",)  # type: ignore[union-attr]


def test_settings_added_beside_siblings_give_a_proved_macro_called_once_per_site(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    backoff = CONFIG.replace("LIMIT = 100\n", "LIMIT = 100\nBACKOFF = 2\n")
    write_task(root, "backoff", "Add `BACKOFF = 2` after LIMIT.", backoff, "BACKOFF == 2")
    both = CONFIG.replace("LIMIT = 100\n", "LIMIT = 100\nJITTER = 5\n").replace(
        "RETRIES = 3\n", "RETRIES = 3\nDELAY = 1\n"
    )
    write_task(root, "jitter", "Add `JITTER = 5` and `DELAY = 1`.", both, "JITTER == 5 and DELAY == 1")
    out = tmp_path / "macros"
    assert cli.main(["macros", "mine", str(root), "-o", str(out), "--sandbox", "none"]) == 0
    (kept,) = [s for s in json.loads((out / "mined-macros.json").read_text())["shapes"] if s["kept"]]
    assert (kept["before"], kept["after"], kept["tasks"]) == (
        "Module: {p0} = {p1}",
        "{p2} = {p3}",
        ["backoff", "jitter"],
    )
    folder = out / kept["name"].replace("_", "-")
    shown = (folder / "examples" / "jitter" / "fixture" / "app" / "config.py").read_text()
    made = (CONFIG.replace("RETRIES = 3\n", "RETRIES = 3\nDELAY = 1\n"), backoff.replace("BACKOFF = 2", "JITTER = 5"))
    assert shown in made  # one call made, the other is the example's
    assert cli.main(["check-contracts", str(folder)]) == 0


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("X = [1, 2]\n", "X = [1, 2, 3]\n"),  # after the last element, which had no comma
        ("X = [1, 2]\n", "X = [0, 1, 2]\n"),  # before the first
        ("X = {\n    'a': 1,\n}\n", "X = {\n    'a': 1,\n    'b': 2,\n}\n"),  # a line each, as its sibling
        ("class A:\n    x = 1\n\n    def f(self):\n        pass\n", None),  # statements keep the sibling's blank line
    ],
)
def test_items_are_laid_out_as_their_sibling(tmp_path: Path, before: str, after: str | None) -> None:
    wanted = after or before.replace("        pass\n", "        pass\n\n    def g(self):\n        return 1\n")
    (run,) = file_insertions(before, wanted) or []
    ((pattern, _),) = clusters([Instance("t", run.before, run.after)])
    shape = shape_of(pattern)
    assert shape is not None
    shape.write(tmp_path)
    (tmp_path / "m.py").write_text(before)
    ctx = MacroContext(Workspace(tmp_path), {"files": ["m.py"], **instance_arguments(pattern, 0)})
    assert InsertMacro(tmp_path).preconditions(ctx) == []
    InsertMacro(tmp_path).run(ctx)
    assert (tmp_path / "m.py").read_text() == wanted


def test_an_entry_or_a_parameter_rewritten_is_an_item_edit_under_its_path(tmp_path: Path) -> None:
    (word,) = file_rewrites("l.py", LOCALES, LOCALES.replace('"ein Tag"', '"1 Tag"')) or []
    assert word.before.label == "Items:replace" and word.before.children[1].children[0].label == 'SimpleString:"day"'
    method = "class Client:\n    def send(self, timeout=10):\n        pass\n"
    (inside,) = file_rewrites("c.py", method, method.replace("timeout=10", "timeout=30")) or []
    path = inside.before.children[0]
    assert [step.label for step in path.children] == ["Scope:class", "Scope:def", "Container:Parameters"]
    code = "def send(data, timeout=10):\n    pass\n"
    longer = code.replace("timeout=10", "timeout=30")
    (default,) = file_rewrites("c.py", code, longer) or []
    other = "def get(url, retries=3):\n    pass\n"
    (second,) = file_rewrites("g.py", other, other.replace("retries=3", "retries=5")) or []
    ((pattern, group),) = clusters(
        [Instance("a", default.before, default.after), Instance("b", second.before, second.after)]
    )
    assert len(group) == 2 and acceptable(pattern)  # the def's name and the parameter become holes
    shape = shape_of(pattern)
    assert shape is not None and macro_name(shape).startswith("mined_replace_parameters_")
    shape.write(tmp_path)
    (tmp_path / "c.py").write_text(code)
    ctx = MacroContext(Workspace(tmp_path), {"files": ["c.py"], **instance_arguments(pattern, 0)})
    macro = InsertMacro(tmp_path)
    assert macro.preconditions(ctx) == []
    assert macro.run(ctx) == "rewrote one item in each of 1 file(s)"
    assert (tmp_path / "c.py").read_text() == longer
    assert macro.pieces({"c.py": code.encode()}, {"c.py": longer.encode()}) == [
        {"files": ["c.py"], **instance_arguments(pattern, 0)}
    ]
