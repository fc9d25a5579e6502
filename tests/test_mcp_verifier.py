"""Served tasks that can succeed: ``serve-mcp --verify-tests`` / ``--verify-command``, judged at finish.

The repository served is the fix-add task's starting files: ``tests/test_ops.py`` (its own tests)
fails until ``SCALE = 2`` in ``calc/ops.py`` becomes ``SCALE = 1``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
from conftest import REPO  # noqa: E402

from pytest_granularity.cli import main  # noqa: E402
from pytest_granularity.core.audit import AuditLog, audit_records  # noqa: E402
from pytest_granularity.core.result import RunResult  # noqa: E402
from pytest_granularity.core.workspace import Workspace  # noqa: E402
from pytest_granularity.macros import MacroRegistry  # noqa: E402
from pytest_granularity.mcp.tool_session import ServeSettings, ToolSession  # noqa: E402
from pytest_granularity.report.render import read_records, write_report  # noqa: E402
from pytest_granularity.routing.routers import heuristic_policy  # noqa: E402
from pytest_granularity.run.policies import FIXED_POLICIES  # noqa: E402
from pytest_granularity.verifier.served_verifier import command_verifier, held_tests  # noqa: E402

EDIT = {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"}
MISFIT = {"files": ["calc/ops.py"], "old": "SCALE = 3", "new": "SCALE = 1"}
SCALE_IS_ONE = f"{sys.executable} -c 'import sys, calc.ops as o; sys.exit(o.SCALE != 1)'"


@pytest.fixture
def repo(fix_add, tmp_path) -> Path:
    return Workspace.for_task(fix_add, parent=tmp_path).root


def served(repo: Path, tmp_path: Path, verifier, policy: str = "micro") -> ToolSession:
    chosen = heuristic_policy() if policy == "heuristic" else FIXED_POLICIES[policy]
    settings = ServeSettings(chosen, MacroRegistry.load(), verifier=verifier)
    return ToolSession(repo, settings, AuditLog(tmp_path / "audit.jsonl", {"session": "mcp-test"}), "mcp-test")


def finish_after(session: ToolSession, prompt: str, *calls: tuple[str, dict]) -> str:
    session.call("start_task", {"prompt": prompt})
    for name, arguments in calls:
        session.call(name, arguments)
    return session.call("finish", {"summary": "done"}).text


def test_a_real_stdio_session_degrades_fixes_and_is_verified_by_the_repositorys_own_tests(
    repo, tmp_path, fix_add, capsys
):
    audit = tmp_path / "audit.jsonl"
    args = ["serve-mcp", str(repo), "--copy", "--policy", "hybrid", "--audit", str(audit)]
    command = ["-m", "pytest_granularity.cli", *args, "--verify-tests", "tests/test_ops.py"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = mcp.StdioServerParameters(command=sys.executable, args=command, env=env, cwd=str(tmp_path))

    async def drive():
        async with mcp.Client(server, mode="legacy") as client:
            await client.call_tool("start_task", {"prompt": fix_add.prompt})
            failed = await client.call_tool("replace_and_verify", MISFIT)
            await client.call_tool("edit_file", EDIT)
            return failed.is_error, (await client.call_tool("finish", {"summary": "SCALE fixed"})).content[0].text

    failed, finished = anyio.run(drive)
    assert failed and "degraded to micro tools; changed paths: calc/ops.py" in finished
    assert "Verifier (tests tests/test_ops.py): passed." in finished
    (record,) = audit_records(audit)
    assert (record.outcome, record.degraded, record.failure_class) == ("passed", True, "precondition_mismatch")
    assert "3 passed" in record.verifier_output
    session = json.loads(audit.read_text().splitlines()[0])
    assert session["verifier"] == "tests tests/test_ops.py"
    assert main(["report", str(audit)]) == 0
    assert "hybrid  none   1     1.000    [1.000, 1.000]  2.00 / 2" in capsys.readouterr().out


def test_an_unfixed_task_fails_and_editing_the_held_aside_tests_changes_nothing(repo, tmp_path, fix_add):
    verifier = held_tests(repo, ["tests/test_ops.py"], tmp_path / "held", 60.0)
    session = served(repo, tmp_path, verifier)
    cheat = {"path": "tests/test_ops.py", "old": "assert add(2, 3) == 5", "new": "assert True"}
    text = finish_after(session, fix_add.prompt, ("edit_file", cheat))
    assert "Verifier (tests tests/test_ops.py): failed ([verifier] 3 of 3 verifier tests did not pass" in text
    text = finish_after(session, fix_add.prompt, ("edit_file", EDIT))
    assert "Verifier (tests tests/test_ops.py): passed." in text
    first, second = audit_records(tmp_path / "audit.jsonl")
    assert (first.outcome, second.outcome) == ("failed", "passed")
    assert not (repo / "_granularity_verifier").exists()


def test_a_command_verifier_accepts_on_exit_status_zero_and_times_out_as_an_error(repo, tmp_path, fix_add):
    session = served(repo, tmp_path, command_verifier(SCALE_IS_ONE, 60.0))
    assert "): failed ([verifier] " in finish_after(session, fix_add.prompt)
    assert "): passed." in finish_after(session, fix_add.prompt, ("edit_file", EDIT))
    slow = served(repo, tmp_path / "slow", command_verifier(f"{sys.executable} -c 'import time; time.sleep(60)'", 0.5))
    assert "): error (verifier timed out after 0.5s)." in finish_after(slow, fix_add.prompt)
    outcomes = [r.outcome for r in audit_records(tmp_path / "audit.jsonl")]
    assert outcomes == ["failed", "passed"]


def test_a_task_stopped_by_the_macro_policy_fails_and_an_abandoned_one_stays_unverified(repo, tmp_path, fix_add):
    session = served(repo, tmp_path, command_verifier(SCALE_IS_ONE, 60.0), policy="macro")
    session.call("start_task", {"prompt": fix_add.prompt})
    assert "It was not verified" not in session.call("replace_and_verify", MISFIT).text
    session.call("start_task", {"prompt": fix_add.prompt})
    session.close()
    stopped, abandoned = audit_records(tmp_path / "audit.jsonl")
    assert (stopped.outcome, stopped.stop_reason) == ("failed", "macro_failed")
    assert (abandoned.outcome, abandoned.stop_reason) == ("unverified", "session_closed")


def benchmark_run(task: str, outcome: str) -> RunResult:
    return RunResult(task, "simple", "heuristic", "none", outcome, "micro", 3, 900, 800, 100, 0)


def test_merged_with_a_benchmark_report_unverified_served_tasks_are_a_row_of_their_own(repo, tmp_path, fix_add, capsys):
    report = tmp_path / "bench.json"
    write_report(report, [benchmark_run("a", "passed"), benchmark_run("b", "failed")])
    session = served(repo, tmp_path, None, policy="heuristic")
    finish_after(session, fix_add.prompt)
    session.close()
    merged = tmp_path / "merged.json"
    assert main(["merge", str(report), str(tmp_path / "audit.jsonl"), "-o", str(merged)]) == 0
    assert [r.outcome for r in read_records(merged)] == ["passed", "failed", "unverified"]
    capsys.readouterr()
    assert main(["report", str(merged)]) == 0
    rows = {line.split("  ")[0]: line for line in capsys.readouterr().out.splitlines()[2:4]}
    assert rows["heuristic"].startswith("heuristic               none   2     0.500")
    assert rows["heuristic (unverified)"].startswith("heuristic (unverified)  none   1     -        -  ")
    summaries = json.loads(merged.read_text())["summaries"]
    assert [(s["policy"], s["runs"], s["successes"], s["verified"]) for s in summaries if s["family"] == "all"] == [
        ("heuristic", 2, 1, True),
        ("heuristic", 1, 0, False),
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-steps", "0"], "--max-steps 0: must be at least 1"),
        (["--audit", "{tmp}"], "is a folder; name the log file (JSONL) to append to"),
        (["--verify-tests", "../outside.py"], "--verify-tests ../outside.py: must be a path inside the repository"),
        (["--verify-tests", "tests/missing.py"], "--verify-tests tests/missing.py: no such file or folder in"),
        (["--verify-command", "'unclosed"], '--verify-command "\'unclosed": No closing quotation'),
        (["--verify-command", "python -V", "--verify-timeout", "0"], "--verify-timeout 0: must be more than 0 seconds"),
    ],
)
def test_bad_verifier_and_limit_options_are_one_line_usage_errors(repo, tmp_path, capsys, args, message):
    assert main(["serve-mcp", str(repo), *(a.format(tmp=tmp_path) for a in args)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("granularity serve-mcp: ")
