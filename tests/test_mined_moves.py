"""A module move mined from a history: recognised from the files, proved on its sources, used on later work."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from evolution_tasks import as_bytes, attempt_later, mine_history

from pytest_granularity.evolution.engine_writer import MOVE
from pytest_granularity.evolution.moves import Moved, moved, pieces
from pytest_granularity.macros import MacroRegistry

PROJECT = {
    "app/__init__.py": "",
    "app/util.py": "def double(x):\n    return 2 * x\n",
    "app/text.py": "def shout(s):\n    return s.upper() + '!'\n",
    "app/dates.py": "def year(d):\n    return d.year\n",
    "app/core.py": "from app.util import double\nfrom app.text import shout\nfrom app import dates\n\n\n"
    "def both(x, s, d):\n    return double(x), shout(s), dates.year(d)\n",
    "tests/test_core.py": "import datetime\n\nfrom app.core import both\n\n\n"
    "def test_both():\n    assert both(2, 'a', datetime.date(2024, 1, 1)) == (4, 'A!', 2024)\n",
}
MOVES = {
    "move-util": ("app/util.py", "app/helpers/util.py", "app.helpers.util", "double"),
    "move-text": ("app/text.py", "app/helpers/text.py", "app.helpers.text", "shout"),
    "move-dates": ("app/dates.py", "app/helpers/dates.py", "app.helpers.dates", "year"),
}


def _write_move_task(root: Path, task_id: str) -> Path:
    """A task that moves one module of PROJECT into a new ``app.helpers`` package, every import rewritten."""
    old, new, module, name = MOVES[task_id]
    folder = root / task_id
    for rel, code in PROJECT.items():
        (folder / "fixture" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "fixture" / rel).write_text(code)
    old_module = old[:-3].replace("/", ".")
    stem = old_module.rsplit(".", 1)[1]
    solution = {
        new: PROJECT[old],
        "app/helpers/__init__.py": "",
        "app/core.py": PROJECT["app/core.py"]
        .replace(f"from {old_module} import", f"from {module} import")
        .replace(f"from app import {stem}\n", f"from app.helpers import {stem}\n"),
    }
    for rel, code in solution.items():
        (folder / "solution" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "solution" / rel).write_text(code)
    (folder / "verifier").mkdir()
    (folder / "verifier" / f"test_{task_id.replace('-', '_')}.py").write_text(
        f"import importlib\n\nimport pytest\n\nfrom {module} import {name}  # noqa: F401\n\n\n"
        f"def test_old_place_is_gone():\n    with pytest.raises(ImportError):\n"
        f"        importlib.import_module({old_module!r})\n"
    )
    data = {
        "id": task_id,
        "family": "refactor",
        "prompt": f"Move the module {old} to {new} (module `{module}`) and update every import of it.",
        "fixture": "./fixture",
        "solution": {"overlay": "solution/", "delete": [old]},
        "verifier": {"tests": "verifier/", "timeout_seconds": 60},
        "tests": ["tests"],
    }
    (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def test_a_module_moved_is_recognised_from_theas_bytes() -> None:
    before = as_bytes(PROJECT)
    after = {**before, "app/helpers/util.py": before["app/util.py"], "app/helpers/__init__.py": b""}
    del after["app/util.py"]
    assert moved(before, after) == Moved("app/util.py", "app/helpers/util.py"), "into a new package"
    assert moved(before, {**after, "app/extra/__init__.py": b""}) is None, "a package it does not go into"
    assert pieces(before, after) == [{"source": "app/util.py", "destination": "app/helpers/util.py"}]


def test_a_package_moved_is_recognised_and_an_unrelated_file_is_not() -> None:
    before = as_bytes(PROJECT)
    package = {f"lib/{k[4:]}": v for k, v in before.items() if k.startswith("app/")}
    after = {**{k: v for k, v in before.items() if not k.startswith("app/")}, **package}
    assert moved(before, after) == Moved("app", "lib")
    other = {**before, "app/other.py": b"import sys\nprint(sys.argv)\n"}
    del other["app/util.py"]
    assert moved(before, other) is None, "a file removed and an unlike one added is no move"


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("moves")
    return root, mine_history(root, _write_move_task, ("move-util", "move-text"))


def test_two_moves_in_a_history_give_a_move_macro_proved_on_both(mined) -> None:
    root, summary = mined
    assert summary["moves"] == 2 and summary["unused"] == {}
    (kept,) = [s for s in summary["shapes"] if s["kept"]]
    assert kept["name"] == MOVE.name and kept["tasks"] == ["move-text", "move-util"]
    macro = MacroRegistry.load([root / "macros"], builtin=False).get(MOVE.name)
    assert macro is not None and macro.contract["probation"] and macro.pieces is not None
    assert [p["task"] for p in macro.contract["provenance"]] == ["move-text", "move-util"]


def test_the_mined_move_solves_a_later_move_alone(mined) -> None:
    root, _ = mined
    result = attempt_later(root, _write_move_task, "move-dates")
    assert (result.solved, result.macro, result.harmful, result.coverage) == (True, MOVE.name, False, 1.0)


def test_one_move_is_an_anecdote(tmp_path: Path) -> None:
    (found,) = mine_history(tmp_path, _write_move_task, ["move-util"])["shapes"]
    assert not found["kept"] and found["reason"] == "supported by 1 task(s), fewer than 2"
