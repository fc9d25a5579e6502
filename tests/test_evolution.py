"""Macro mining, module by module: rewrites, anti-unification, the engine a mined macro runs on."""

from __future__ import annotations

from pathlib import Path

import pytest
from evolution_tasks import CONFIG, write_tasks

from pytest_granularity.core.workspace import Workspace, render_diff, write_tree
from pytest_granularity.evolution.covering import covering_tests, validation_tests
from pytest_granularity.evolution.edits import ADDS_FILES, NOT_PYTHON, NOT_REWRITES, SEVERAL, SIGNATURE, edit_of
from pytest_granularity.evolution.engine import ShapeMacro
from pytest_granularity.evolution.generalize import Instance, acceptable, anti_unify, clusters
from pytest_granularity.evolution.rewrites import file_rewrites
from pytest_granularity.evolution.shape import instance_arguments, shape_of
from pytest_granularity.evolution.sources import Source, applied, task_sources
from pytest_granularity.evolution.writer import macro_name
from pytest_granularity.macros import MacroContext


def rewrite(before: str, after: str) -> tuple:
    found = file_rewrites("m.py", before, after)
    assert found is not None and len(found) == 1
    return found[0].before, found[0].after


def test_a_rewrite_is_the_smallest_statement_or_header_part_that_changed() -> None:
    b, a = rewrite(
        "def f(x):\n    if len(x) >= N:\n        return 1\n", "def f(x):\n    if len(x) > N:\n        return 1\n"
    )
    assert b.label == a.label == "Comparison"  # the if's test, not the whole if
    b, a = rewrite("A = 1\nB = 2\n", "A = 1\nB = 3\n")
    assert b.label == "Assign" and a.children[1].label == "Integer:3"


def test_layout_is_not_a_change_and_added_statements_are_not_a_rewrite() -> None:
    assert file_rewrites("m.py", "x = f(1,2)\n", "x = f( 1, 2 )  # same\n") == []
    assert file_rewrites("m.py", "x = 1\n", "x = 1\ny = 2\n") is None
    assert file_rewrites("m.py", "x = 1\n", "def (:\n") is None


def test_anti_unification_links_what_moves_and_holes_only_expressions() -> None:
    one = rewrite("if n >= LIMIT:\n    pass\n", "if n > LIMIT:\n    pass\n")
    two = rewrite("if len(xs) >= size:\n    pass\n", "if len(xs) > size:\n    pass\n")
    pattern = anti_unify([one[0], two[0]], [one[1], two[1]])
    assert pattern is not None and acceptable(pattern)
    assert pattern.before.holes() == pattern.after.holes() == [0, 1]  # the same holes on both sides
    assert [len(v) for v in pattern.values] == [2, 2]
    other = rewrite("if n < LIMIT:\n    pass\n", "if n <= LIMIT:\n    pass\n")
    assert anti_unify([one[0], other[0]], [one[1], other[1]]) is None  # operators differ: no expression hole


def test_a_pattern_that_would_match_anything_or_says_nothing_is_refused() -> None:
    one = rewrite("return a and b\n", "return c and d\n")
    two = rewrite("return e and f\n", "return g and h\n")
    pattern = anti_unify([one[0], two[0]], [one[1], two[1]])
    assert pattern is not None and not acceptable(pattern)  # no before-hole survives the edit
    x = rewrite("f(1)\n", "g(2)\n")
    y = rewrite("h(3)\n", "k(4)\n")
    loose = anti_unify([x[0], y[0]], [x[1], y[1]])
    assert loose is not None and not acceptable(loose)


def test_clusters_count_different_tasks_and_merge_alike_edits() -> None:
    r = [rewrite(f"{n} = {v}\n", f"{n} = {w}\n") for n, v, w in (("A", 1, 2), ("B", 3, 4), ("C", 5, 6))]
    grouped = clusters([Instance("t1", *r[0]), Instance("t2", *r[1]), Instance("t1", *r[2])])
    assert [sorted(i.task for i in g) for _, g in grouped] == [["t1", "t1", "t2"]]  # t1's two sites, one task
    other = rewrite("if n >= LIMIT:\n    pass\n", "if n > LIMIT:\n    pass\n")
    grouped = clusters([Instance("t1", *r[0]), Instance("t2", *r[1]), Instance("t2", *other)])
    assert [sorted(i.task for i in g) for _, g in grouped] == [["t1"]]  # t2's calls are not all of one shape


def test_edit_of_names_why_a_source_is_not_one_rewrite(tmp_path: Path) -> None:
    root = write_tasks(tmp_path)
    (task,) = [s.task for s in task_sources(root / "more-retries")]
    base = {"app/config.py": CONFIG.encode(), "README.md": b"x"}

    def source(after: dict[str, bytes]) -> Source:
        return Source(task, base, after, "test")

    assert edit_of(source({**base, "app/new.py": b""})) == ADDS_FILES
    assert edit_of(source({**base, "README.md": b"y"})) == NOT_PYTHON
    moved = CONFIG.replace("RETRIES = 3\n", "") + "RETRIES = 3\n"  # one statement removed, one added elsewhere
    assert edit_of(source({**base, "app/config.py": moved.encode()})) == NOT_REWRITES
    several = CONFIG.replace("= 3", "= 4").replace(">= LIMIT", "> LIMIT")
    assert edit_of(source({**base, "app/config.py": several.encode()})) == SEVERAL
    constants = CONFIG.replace("RETRIES = 3", "RETRIES = 4").replace("TIMEOUT = 10", "TIMEOUT = 11")
    two = edit_of(source({**base, "app/config.py": constants.encode()}))
    assert not isinstance(two, str) and [s.files for s in two.sites] == [("app/config.py",)] * 2  # a call each
    for signature in ("def allowed(items, limit=LIMIT):", "def allowed(items) -> bool:"):
        changed = CONFIG.replace("def allowed(items):", signature)
        assert edit_of(source({**base, "app/config.py": changed.encode()})) == SIGNATURE
    decorated = CONFIG.replace("def allowed", "@staticmethod\ndef allowed")
    for decorators in (decorated.replace("@staticmethod", "@classmethod"), decorated.replace("@staticmethod", "")):
        assert edit_of(
            Source(task, {"app/config.py": decorated.encode()}, {"app/config.py": decorators.encode()}, "")
        ) == (SIGNATURE)
    based = "class A(Base):\n    pass\n"
    rebased = {"app/config.py": based.replace("Base", "Other").encode()}
    assert edit_of(Source(task, {"app/config.py": based.encode()}, rebased, "test")) == SIGNATURE
    edit = edit_of(source({**base, "README.md": b"y", "app/config.py": CONFIG.replace("= 3", "= 4").encode()}))
    assert not isinstance(edit, str) and edit.files == ("app/config.py",)


def test_a_run_diff_applies_to_the_task_files() -> None:
    before = {"a.py": b"x = 1\n", "b.txt": b"keep\n"}
    diff = render_diff("a.py", before["a.py"], b"x = 2\n")
    assert applied(before, diff) == {"a.py": b"x = 2\n", "b.txt": b"keep\n"}


@pytest.fixture
def shape_macro(tmp_path: Path) -> ShapeMacro:
    one = rewrite("RETRIES = 3\n", "RETRIES = 5\n")
    two = rewrite("TIMEOUT = 10\n", "TIMEOUT = 30\n")
    pattern = anti_unify([one[0], two[0]], [one[1], two[1]])
    assert pattern is not None
    shape = shape_of(pattern)
    assert shape is not None and [h.before for h in shape.holes] == [True, True, False]
    assert instance_arguments(pattern, 1) == {"p0": "TIMEOUT", "p1": "10", "p2": "30"}
    assert macro_name(shape).startswith("mined_assign_")
    shape.write(tmp_path)
    return ShapeMacro(tmp_path)


def test_derive_binds_the_file_and_takes_new_values_from_the_prompt(shape_macro: ShapeMacro) -> None:
    files = {"app/config.py": CONFIG.encode(), "app/other.py": b"TIMEOUT = 10\n", "tests/test_it.py": b"TIMEOUT = 10\n"}
    calls = shape_macro.derive("Set `LIMIT` in app/config.py to 250.", files)
    assert calls[0] == {"files": ["app/config.py"], "p0": "LIMIT", "p1": "100", "p2": "250"}
    assert all(c["p2"] in ("250",) for c in calls)  # only values the prompt gives, of the kind the sources had
    merged = shape_macro.derive("`TIMEOUT` in app/config.py and app/other.py must be 45", files)[0]
    assert (
        merged["files"] == ["app/config.py", "app/other.py"] and merged["p2"] == "45"
    )  # no test file: none was a source
    read = shape_macro.derive("Raise TIMEOUT from 10 to 20 in app/other.py; 30 is too much.", files)[0]
    assert read["files"] == ["app/other.py"] and read["p2"] == "20"  # the request reader's "from 10 to 20"


def test_derive_proposes_only_a_whole_change_the_request_states(shape_macro: ShapeMacro) -> None:
    files = {"app/config.py": CONFIG.encode(), "app/other.py": b"TIMEOUT = 10\n", "README.md": b"Waits 10 s.\n"}
    assert shape_macro.derive("`TIMEOUT` must be 45", files) == []  # which file? the reader reads named files
    assert shape_macro.derive("app/config.py fails on Latin-1 input; read it as UTF-8.", files) == []  # 1 and 8
    assert shape_macro.derive("Raise TIMEOUT from 10 to 20 in app/other.py and README.md.", files) == []  # half
    whole = shape_macro.derive("Set TIMEOUT in app/other.py to 20 (README.md: 10 s).", files)  # 10 to 20: a guess
    assert whole[0] == {"files": ["app/other.py"], "p0": "TIMEOUT", "p1": "10", "p2": "20"}


def test_preconditions_run_and_validation_of_a_mined_macro(shape_macro: ShapeMacro, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    (root / "app" / "config.py").write_text(CONFIG.replace("TIMEOUT = 10", "TIMEOUT  =  10  # seconds"))
    workspace = Workspace(root)
    args = {"files": ["app/config.py"], "p0": "TIMEOUT", "p1": "10", "p2": "30"}
    assert shape_macro.preconditions(MacroContext(workspace, args)) == []
    refused = shape_macro.preconditions(MacroContext(workspace, {**args, "p1": "11"}))
    assert refused == ["app/config.py has `TIMEOUT = 11` 0 times, not exactly once"]
    assert shape_macro.preconditions(MacroContext(workspace, {**args, "p2": "10"})) == [
        "with these values the rewrite changes nothing"
    ]
    assert "is not a Python expression" in shape_macro.preconditions(MacroContext(workspace, {**args, "p2": "("}))[0]
    assert shape_macro.run(MacroContext(workspace, args)) == "rewrote one place in each of 1 file(s)"
    assert "TIMEOUT = 30" in (root / "app" / "config.py").read_text()


def test_an_anchor_found_twice_is_refused_before_anything_is_written(shape_macro: ShapeMacro, tmp_path: Path) -> None:
    code = CONFIG + "\n\ndef reset():\n    global TIMEOUT\n    TIMEOUT = 10\n"
    (tmp_path / "config.py").write_text(code)
    args = {"files": ["config.py"], "p0": "TIMEOUT", "p1": "10", "p2": "30"}
    refused = shape_macro.preconditions(MacroContext(Workspace(tmp_path), args))
    assert refused == ["config.py has `TIMEOUT = 10` 2 times, not exactly once"]
    assert (tmp_path / "config.py").read_text() == code


def test_validation_adds_the_tests_that_import_a_rewritten_module(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": b"",
        "app/config.py": CONFIG.encode(),
        "app/other.py": b"",
        "tests/test_config.py": b"from app.config import LIMIT\n",
        "tests/test_package.py": b"from app import config\n",
        "tests/test_module.py": b"import app.config as c\n",
        "tests/test_other.py": b"from app import other\n",
        "tests/helpers.py": b"from app.config import LIMIT\n",
    }
    write_tree(tmp_path, files)
    covering = ["tests/test_config.py", "tests/test_module.py", "tests/test_package.py"]
    assert covering_tests(tmp_path, files, ["app/config.py"]) == covering
    narrowed = MacroContext(Workspace(tmp_path), {"files": ["app/config.py"], "tests": ["tests/test_other.py"]})
    assert validation_tests(narrowed) == ["tests/test_other.py", *covering]
    assert validation_tests(MacroContext(Workspace(tmp_path), {"files": ["app/config.py"]})) == []  # the whole suite
    # a task's own list passed before the change: a file it leaves out fails there already, and is not added
    listed = MacroContext(Workspace(tmp_path), {"files": ["app/config.py"]}, ("tests/test_other.py",))
    assert validation_tests(listed) == ["tests/test_other.py"]
