"""``granularity macros mine`` as a user runs it: macros written only when proved, the rest reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evolution_tasks import CONFIG, write_task, write_tasks

from pytest_granularity import cli
from pytest_granularity.core.tasks import load_task
from pytest_granularity.evolution.measure import attempt, micro_run, tally
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.process.sandbox import NO_SANDBOX


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = write_tasks(tmp_path_factory.mktemp("evolution") / "tasks")
    out = root.parent / "macros"
    code = cli.main(["macros", "mine", str(root), "-o", str(out), "--sandbox", "none"])
    assert code == 0
    return root, out, ""


def test_the_shape_two_tasks_share_is_written_and_proved(mined: tuple[Path, Path, str]) -> None:
    _, out, _ = mined
    summary = json.loads((out / "mined-macros.json").read_text())
    kept = [s for s in summary["shapes"] if s["kept"]]
    assert [(s["before"], s["after"], s["tasks"]) for s in kept] == [
        ("{p0} = {p1}", "{p0} = {p2}", ["longer-timeout", "more-retries"])
    ]
    assert summary["unused"] == {"adds, moves or removes Python files": 1}
    lonely = [s for s in summary["shapes"] if s["tasks"] == ["inclusive-limit"]]
    assert lonely and not lonely[0]["kept"] and lonely[0]["reason"] == "supported by 1 task(s), fewer than 2"
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == [kept[0]["name"].replace("_", "-")]  # nothing staged is left, nothing unproved written


def test_a_mined_macro_passes_check_contracts_as_any_macro_folder(mined: tuple[Path, Path, str]) -> None:
    _, out, _ = mined
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    registry = MacroRegistry.load([out], builtin=False)
    macro = registry.get(folder.name.replace("-", "_"))
    assert macro is not None and macro.contract["provenance"][0]["task"] == "longer-timeout"
    assert cli.main(["check-contracts", str(folder)]) == 0


def test_a_mined_macro_solves_a_later_task_with_no_model(mined: tuple[Path, Path, str], tmp_path: Path) -> None:
    _, out, _ = mined
    later = load_task(
        write_task(
            tmp_path,
            "bigger-limit",
            "Raise `LIMIT` in app/config.py to 250.",
            CONFIG.replace("LIMIT = 100", "LIMIT = 250"),
            "LIMIT == 250",
        )
    )
    registry = MacroRegistry.load([out], builtin=False)
    result = attempt(later, registry, NO_SANDBOX)
    assert result.solved and result.macro is not None and not result.harmful
    wrong = load_task(
        write_task(
            tmp_path,
            "wrong-value",
            "Raise `LIMIT` in app/config.py to 250.",
            CONFIG.replace("LIMIT = 100", "LIMIT = 250"),
            "LIMIT == 300",
        )
    )
    harmful = attempt(wrong, registry, NO_SANDBOX)
    assert harmful.macro is not None and harmful.harmful  # its validation passed, the verifier did not
    assert tally([result, harmful])["harmful"] == 1


def test_the_breaker_retires_a_mined_macro_whose_validation_keeps_failing(
    mined: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, out, _ = mined
    pinned = "from app.config import LIMIT\n\n\ndef test_limit():\n    assert LIMIT == 100\n"
    registry = MacroRegistry.load([out], builtin=False)
    (name,) = registry.names
    outcomes = []
    for n in range(registry.breaker + 1):
        task = load_task(
            write_task(
                tmp_path,
                f"limit-{n}",
                f"Raise `LIMIT` in app/config.py to {200 + n}.",
                CONFIG.replace("LIMIT = 100", f"LIMIT = {200 + n}"),
                f"LIMIT == {200 + n}",
                own_tests=pinned,
            )
        )
        outcomes.append(attempt(task, registry, NO_SANDBOX))
    assert [a.macro for a in outcomes] == [None] * (registry.breaker + 1)  # each call failed its validation
    assert registry.unavailable(name) == f"circuit breaker open after {registry.breaker} consecutive failures"
    assert name not in [m.name for m in registry.available()]  # the last task was not offered it


def test_runs_are_sources_too(mined: tuple[Path, Path, str], tmp_path: Path) -> None:
    root, _, _ = mined
    runs = [micro_run(load_task(root / name), NO_SANDBOX) for name in ("more-retries", "longer-timeout")]
    report = tmp_path / "runs.jsonl"
    report.write_text("".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in runs))
    out = tmp_path / "macros"
    assert cli.main(["macros", "mine", str(report), "--tasks", str(root), "-o", str(out), "--sandbox", "none"]) == 0
    summary = json.loads((out / "mined-macros.json").read_text())
    assert [s["tasks"] for s in summary["shapes"] if s["kept"]] == [["longer-timeout", "more-retries"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "nowhere: no such file or folder"),
        (["runs.jsonl"], "runs.jsonl: a run report's tasks are read from --tasks DIR, which is not given"),
        (["tasks", "--min-support", "0"], "--min-support 0: must be at least 1"),
        (
            ["tasks", "-o", "tasks/mined"],
            "tasks/mined: inside the source folder tasks, whose tasks its examples would join",
        ),
    ],
)
def test_bad_input_is_one_line_naming_it(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs.jsonl").write_text("")
    (tmp_path / "tasks").mkdir()
    assert cli.main(["macros", "mine", *args, *([] if "-o" in args else ["-o", "out"])]) == 2
    assert capsys.readouterr().err.strip().endswith(message)
