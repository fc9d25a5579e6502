"""Every shipped benchmark task is honest: it fails before and passes after its reference solution."""

from __future__ import annotations

import pytest
from conftest import REPO

from pytest_granularity.core.tasks import FAMILIES, find_task_files, load_task
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.run.taskcheck import adversary_verdicts, check_task_file

TASK_FILES = find_task_files([REPO / "benchmark_tasks"])


@pytest.fixture(scope="module")
def macros():
    return MacroRegistry.load()


@pytest.mark.parametrize("path", TASK_FILES, ids=[p.parent.name for p in TASK_FILES])
def test_task_is_honest(path, macros):
    result = check_task_file(path, macros, adversaries=False)
    assert result.ok, "\n".join(result.problems)


CHEAT_SAMPLE = [
    p
    for p in TASK_FILES
    if p.parent.name
    in {
        "inventory-fix-tax-rate",
        "textkit-rename-default-top-n",
        "hookshot-move-urls-into-util",
        "ledgerflow-recover-move-records",
    }
]


@pytest.mark.parametrize("path", CHEAT_SAMPLE, ids=[p.parent.name for p in CHEAT_SAMPLE])
def test_no_cheating_agent_passes(path):
    """One task per fixture here; scripts/adversary_table.py runs every cheat on all 80 tasks."""
    verdicts = adversary_verdicts(load_task(path))
    assert len(verdicts) == 8 and not [name for name, verdict in verdicts.items() if verdict.accepted]


def test_the_benchmark_has_twenty_tasks_per_family():
    tasks = [load_task(p) for p in TASK_FILES]
    assert len({t.id for t in tasks}) == len(tasks)
    counts = {family: sum(t.family == family for t in tasks) for family in FAMILIES}
    assert counts == {family: 20 for family in FAMILIES}
    assert all(t.faults == ("early", "late") for t in tasks if t.family == "recovery")
