"""End-to-end runs of ``pytest --granularity=...`` through pytester."""

from __future__ import annotations

import json
import re
import shutil
import sys

import pytest
from conftest import DATA, REPO

from pytest_granularity.report.render import without_timings


@pytest.fixture
def project(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    shutil.copy(REPO / "router.json", pytester.path / "router.json")
    return pytester


def table(output: str) -> list[list[str]]:
    """The main table's rows (header first), cells split on runs of two or more spaces."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(r"=+ granularity =+", line))
    rows = []
    for line in lines[start + 1 :]:
        if (not line.strip() or line.startswith("sandbox: ")) and not rows:
            continue
        if not line.strip():
            break
        if not line.startswith("---"):
            rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def test_micro_run_passes_and_prints_the_table(project):
    result = project.runpytest("tasks", "--granularity=micro", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*task.yaml::fix-add[[]micro[]] PASSED*"])
    rows = table(result.stdout.str())
    assert rows[0][:7] == ["policy", "fault", "runs", "success", "95% CI", "steps", "tokens"]
    assert rows[1][:6] == ["micro", "none", "1", "1.000", "[1.000, 1.000]", "5.00 / 5"]


def test_a_rejected_run_shows_the_verifier_output(project):
    (project.path / "tasks/fix-add/verifier/test_verify_fix_add.py").write_text(
        "def test_impossible():\n    assert 1 == 2, 'impossible demand'\n"
    )
    result = project.runpytest("tasks", "--granularity=micro")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*verifier rejected the final workspace*", "*changed paths: calc/ops.py*", "*impossible demand*"]
    )


def test_a_malformed_task_is_a_collection_error_naming_file_and_field(project):
    task = project.path / "tasks/fix-add/task.yaml"
    task.write_text(task.read_text().replace("family: simple", "family: nonsense"))
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*task.yaml: field 'family': 'nonsense' is not one of*"])


def test_unknown_policy_is_a_usage_error(project):
    result = project.runpytest("tasks", "--granularity=nano")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown policy nano*"])


def test_without_the_option_task_folders_are_not_collected(project):
    result = project.runpytest("tasks")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_run_without_a_session_imports_none_of_its_machinery(pytester):
    """Every pytest run in the environment imports the plugin, a verifier's nested one among them:
    the runner, the gate, the report and the libraries under them wait for ``--granularity``."""
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    code = (
        "import sys, pytest\n"
        "assert pytest.main(['-q', '-p', 'no:cacheprovider', 'test_one.py']) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'libcst', 'git')"
        " or m.startswith(('pytest_granularity.run.runner', 'pytest_granularity.gate', 'pytest_granularity.report',"
        " 'pytest_granularity.macros', 'pytest_granularity.verifier', 'pytest_granularity.routing',"
        " 'pytest_granularity.plugin.session', 'pytest_granularity.plugin.collect', 'pytest_granularity.agents.llama'))))\n"
    )
    result = pytester.run(sys.executable, "-c", code)
    assert result.ret == 0, result.stderr.str()
    assert result.outlines[-1] == "[]"


def test_records_travel_in_user_properties(project):
    result = project.runpytest("tasks", "--granularity=micro", "--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    xml = (project.path / "out.xml").read_text()
    assert 'property name="granularity_run"' in xml and "&quot;tokens&quot;" in xml


def test_xdist_gives_the_same_table_and_report(project):
    pytest.importorskip("xdist")
    serial = project.runpytest_subprocess("tasks", "--granularity=all", "--granularity-report=serial.json")
    parallel = project.runpytest_subprocess(
        "tasks", "--granularity=all", "-n", "2", "--granularity-report=parallel.json"
    )
    parallel.assert_outcomes(passed=12, failed=1)
    assert table(parallel.stdout.str()) == table(serial.stdout.str())
    for suffix in (".json", ".jsonl"):
        assert without_latency((project.path / f"parallel{suffix}").read_text()) == without_latency(
            (project.path / f"serial{suffix}").read_text()
        )


def without_latency(text: str) -> str:
    """Reports are identical but for measured times: macro calls' latencies and the runs' phases."""
    return without_timings(text)


def test_all_policies_with_faults(project):
    result = project.runpytest("tasks", "--granularity=all", "-v")
    result.stdout.fnmatch_lines(
        [
            "*fix-add[[]micro[]] PASSED*",
            "*fix-add[[]macro[]] PASSED*",
            "*fix-add[[]macro-early[]] FAILED*",
            "*fix-add[[]macro-late[]] PASSED*",
            "*fix-add[[]hybrid[]] PASSED*",
            "*fix-add[[]hybrid-early[]] PASSED*",
            "*fix-add[[]hybrid-late[]] PASSED*",
        ]
    )
    rows = table(result.stdout.str())[1:]
    assert [r[:2] for r in rows] == [
        ["micro", "none"],
        ["macro", "none"],
        ["macro", "early"],
        ["macro", "late"],
        ["hybrid", "none"],
        ["hybrid", "early"],
        ["hybrid", "late"],
        ["heuristic", "none"],
        ["heuristic", "early"],
        ["heuristic", "late"],
        ["learned", "none"],
        ["learned", "early"],
        ["learned", "late"],
    ]
    result.stdout.fnmatch_lines(
        ["*transitions: route --macro--> macro | macro --macro_failed(replace_and_verify)--> classify*"]
    )


def test_recovery_override_names_the_policy(project):
    result = project.runpytest("tasks", "--granularity=hybrid", "--granularity-recovery=never", "-v")
    result.stdout.fnmatch_lines(["*fix-add[[]hybrid@never-early[]] FAILED*", "*fix-add[[]hybrid@never-late[]] PASSED*"])


def test_another_plugin_can_inject_a_fault_and_register_macros(project):
    macros = project.path / "mymacros"
    shutil.copytree(REPO / "pytest_granularity/macros/builtin/replace-and-verify", macros / "swap-text")
    contract = macros / "swap-text" / "contract.yaml"
    contract.write_text(contract.read_text().replace("name: replace_and_verify", "name: swap_text"))
    skill = macros / "swap-text" / "SKILL.md"
    skill.write_text(skill.read_text().replace("name: replace-and-verify", "name: swap-text"))
    project.makeconftest(
        """
        from pathlib import Path

        def pytest_granularity_macro_folders(config):
            return [Path(__file__).parent / "mymacros"]

        def pytest_granularity_macro_late(macro, args, workspace):
            raise RuntimeError("plugin fault")
        """
    )
    task = project.path / "tasks/fix-add/task.yaml"
    task.write_text(task.read_text().replace("skill: replace_and_verify", "skill: swap_text"))
    result = project.runpytest("tasks", "--granularity=macro,hybrid")
    rows = {tuple(r[:2]): r for r in table(result.stdout.str())[1:]}
    assert rows[("macro", "none")][3] == "1.000", "the plugin's macro ran, and a late fault leaves the work done"
    assert rows[("macro", "none")][-1] == "executor_exception=1"
    assert rows[("hybrid", "none")][9] == "1.000", "hybrid degrades after every late fault"


def test_a_plugin_at_the_fault_points_sees_every_macro_call(project):
    """Identical calls of different runs are replayed (``macros.call_memo``), but never past a listening plugin."""
    project.makeconftest(
        """
        from pathlib import Path

        def pytest_granularity_macro_early(macro, args, workspace):
            with open(Path(__file__).parent / "calls.txt", "a") as calls:
                calls.write(macro + "\\n")
        """
    )
    result = project.runpytest("tasks", "--granularity=macro,hybrid", "-k", "not early and not late")
    result.assert_outcomes(passed=2)
    assert (project.path / "calls.txt").read_text().split() == ["replace_and_verify"] * 2


def test_a_bad_macro_folder_is_a_usage_error(project):
    (project.path / "bad" / "m").mkdir(parents=True)
    (project.path / "bad" / "m" / "contract.yaml").write_text("name: [")
    result = project.runpytest("tasks", "--granularity=macro", "--granularity-macros=bad")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad macro definition*contract.yaml: field '<file>': not valid YAML*"])


def second_task(project):
    twin = project.path / "tasks" / "fix-add-two"
    shutil.copytree(project.path / "tasks" / "fix-add", twin)
    text = (twin / "task.yaml").read_text().replace("id: fix-add", "id: fix-add-two")
    (twin / "task.yaml").write_text(text.replace("faults: [early, late]\n", ""))


def test_shards_merge_into_the_unsharded_report(project):
    second_task(project)
    whole = project.runpytest("tasks", "--granularity=micro,macro", "--granularity-report=whole.json")
    whole.assert_outcomes(passed=5, failed=1)
    for index in (1, 2):
        shard = project.runpytest(
            "tasks",
            "--granularity=micro,macro",
            f"--granularity-shard={index}/2",
            f"--granularity-report=shard{index}.json",
        )
        assert shard.parseoutcomes()["deselected"] >= 2
    from pytest_granularity.cli import main

    assert (
        main(
            [
                "merge",
                str(project.path / "shard1.json"),
                str(project.path / "shard2.json"),
                "-o",
                str(project.path / "merged.json"),
            ]
        )
        == 0
    )
    for suffix in (".json", ".jsonl"):
        assert without_latency((project.path / f"merged{suffix}").read_text()) == without_latency(
            (project.path / f"whole{suffix}").read_text()
        )


def test_a_bad_shard_is_a_usage_error(project):
    result = project.runpytest("tasks", "--granularity=micro", "--granularity-shard=3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_crashed_worker_is_an_error_row_not_a_lost_run(project, monkeypatch):
    pytest.importorskip("xdist")
    second_task(project)
    monkeypatch.setenv("TMPDIR", str(project.mkdir("tmp")))  # what the crashed worker could not remove stays here
    project.makeconftest(
        """
        import os
        from pytest_granularity.agents.reference import ReferenceAgent

        class Crashy(ReferenceAgent):
            def next_call(self, messages, tools):
                if self.task.id == "fix-add-two":
                    os._exit(3)
                return super().next_call(messages, tools)

        def pytest_granularity_agents(config):
            return {"crashy": Crashy}
        """
    )
    result = project.runpytest_subprocess(
        "tasks", "--granularity=micro", "--granularity-agent=crashy", "-n", "2", "--granularity-report=out.json"
    )
    result.stdout.fnmatch_lines(["*crashed while running*fix-add-two*"])
    records = [json.loads(line) for line in (project.path / "out.jsonl").read_text().splitlines()]
    assert sorted((r["task"], r["outcome"]) for r in records) == [("fix-add", "passed"), ("fix-add-two", "error")]
    rows = table(result.stdout.str())
    assert rows[1][:4] == ["micro", "none", "2", "0.500"] and rows[1][12] == "1"


def test_step_summary_plot_and_verbose_runs(project, monkeypatch):
    summary = project.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = project.runpytest("tasks", "--granularity=micro,macro", "-v", "--granularity-plot=out.png")
    result.stdout.fnmatch_lines(["runs:", "*fix-add*macro*early*failed*1*executor_exception*", "plot: *out.*"])
    text = summary.read_text()
    assert (
        text.startswith("## pytest-granularity\n\n| policy | fault | runs |") and "| none | micro - macro | 1 |" in text
    )


def test_learned_without_a_router_is_a_usage_error(project):
    (project.path / "router.json").unlink()
    result = project.runpytest("tasks", "--granularity=learned")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--granularity=learned:*router.json: cannot read the router*granularity train*"])


def test_faults_all_adds_early_and_late_wherever_a_macro_call_is_declared(project):
    plain = project.path / "tasks" / "fix-add-plain"
    shutil.copytree(project.path / "tasks" / "fix-add", plain)
    text = (
        (plain / "task.yaml")
        .read_text()
        .replace("id: fix-add\n", "id: fix-add-plain\n")
        .replace("faults: [early, late]\n", "")
    )
    (plain / "task.yaml").write_text(text)
    declared = project.runpytest("tasks/fix-add-plain", "--granularity=macro,micro", "--collect-only", "-q")
    declared.stdout.fnmatch_lines(["*2 tests collected*"])
    every = project.runpytest(
        "tasks/fix-add-plain", "--granularity=macro,micro", "--granularity-faults=all", "--collect-only", "-q"
    )
    every.stdout.fnmatch_lines(
        ["*fix-add-plain[[]macro-early[]]*", "*fix-add-plain[[]macro-late[]]*", "*4 tests collected*"]
    )
    (plain / "task.yaml").write_text(text.split("macro:\n")[0])
    none = project.runpytest(
        "tasks/fix-add-plain", "--granularity=macro", "--granularity-faults=all", "--collect-only", "-q"
    )
    none.stdout.fnmatch_lines(["*1 test collected*"])
