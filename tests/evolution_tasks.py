"""Small task folders for the macro-mining tests: one project, several tasks that edit it alike."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from pytest_granularity import cli
from pytest_granularity.core.tasks import load_task
from pytest_granularity.evolution.measure import Attempt, attempt
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process.sandbox import select

CONFIG = "RETRIES = 3\nTIMEOUT = 10\nLIMIT = 100\n\n\ndef allowed(items):\n    return len(items) >= LIMIT\n"
OWN_TESTS = (
    "from app.config import LIMIT, RETRIES, TIMEOUT\n\n\n"
    "def test_positive():\n    assert RETRIES > 0 and TIMEOUT > 0 and LIMIT > 0\n"
)


def write_task(
    root: Path, task_id: str, prompt: str, config: str, check: str, tests: bool = True, own_tests: str = OWN_TESTS
) -> Path:
    """A task whose solution is ``config`` as app/config.py and whose hidden test asserts ``check``."""
    folder = root / task_id
    (folder / "fixture" / "app").mkdir(parents=True)
    (folder / "fixture" / "app" / "__init__.py").write_text("")
    (folder / "fixture" / "app" / "config.py").write_text(CONFIG)
    (folder / "fixture" / "tests").mkdir()
    (folder / "fixture" / "tests" / "test_config.py").write_text(own_tests)
    (folder / "solution" / "app").mkdir(parents=True)
    (folder / "solution" / "app" / "config.py").write_text(config)
    (folder / "verifier").mkdir()
    (folder / "verifier" / f"test_{task_id.replace('-', '_')}.py").write_text(
        f"from app.config import *  # noqa: F403\nfrom app.config import allowed  # noqa: F401\n\n\n"
        f"def test_it():\n    assert {check}\n"
    )
    data = {
        "id": task_id,
        "family": "simple",
        "prompt": prompt,
        "fixture": "./fixture",
        "solution": {"overlay": "solution/"},
        "verifier": {"tests": "verifier/", "timeout_seconds": 60},
        **({"tests": ["tests"]} if tests else {}),
    }
    (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def write_tasks(root: Path) -> Path:
    """Two constant changes (one shape), one comparison fix (a shape of one task), one new file (no rewrite)."""
    write_task(
        root,
        "more-retries",
        "Raise `RETRIES` in app/config.py from 3 to 5.",
        CONFIG.replace("RETRIES = 3", "RETRIES = 5"),
        "RETRIES == 5",
    )
    write_task(
        root,
        "longer-timeout",
        "Set `TIMEOUT` in app/config.py to 30.",
        CONFIG.replace("TIMEOUT = 10", "TIMEOUT = 30"),
        "TIMEOUT == 30",
    )
    write_task(
        root,
        "inclusive-limit",
        "`allowed` must reject exactly LIMIT items: use `>`.",
        CONFIG.replace(">= LIMIT", "> LIMIT"),
        "not allowed(list(range(100)))",
    )
    added = write_task(root, "new-module", "Add app/extra.py.", CONFIG, "True")
    (added / "solution" / "app" / "extra.py").write_text("X = 1\n")
    return root


def mine_history(root: Path, write: Callable[[Path, str], Path], task_ids: Iterable[str]) -> dict[str, Any]:
    """The tasks ``write`` makes under ``root/history`` mined into ``root/macros``: its ``mined-macros.json``."""
    for task_id in task_ids:
        write(root / "history", task_id)
    out = root / "macros"
    assert cli.main(["macros", "mine", str(root / "history"), "-o", str(out), "--sandbox", "none"]) == 0
    summary: dict[str, Any] = json.loads((out / "mined-macros.json").read_text())
    return summary


def attempt_later(root: Path, write: Callable[[Path, str], Path], task_id: str) -> Attempt:
    """A later task, not mined, attempted with the macros ``mine_history`` kept in ``root/macros`` alone."""
    task = load_task(write(root / "later", task_id) / "task.yaml")
    return attempt(task, MacroRegistry.load([root / "macros"], builtin=False), select("none"))


def as_bytes(files: dict[str, str]) -> dict[str, bytes]:
    """A project's files as a source's ``before`` and ``after`` hold them."""
    return {path: text.encode() for path, text in files.items()}
