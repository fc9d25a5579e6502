from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of tests/data, so tests may break it freely."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


@pytest.fixture
def fix_add(data_copy: Path):
    from pytest_granularity.tasks import load_task

    return load_task(data_copy / "tasks" / "fix-add")
