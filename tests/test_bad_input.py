"""Bad and hostile input, one test each: a clear error naming the file and field, or a failed run.

Never a pass, a hang or a traceback. The verifier cases plant what a cheating agent would; the
rest are the broken files and options a user would try.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from conftest import REPO

from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.core.result import RunResult
from pytest_granularity.core.tasks import TaskError, load_task
from pytest_granularity.core.workspace import Workspace, WorkspaceError, solution_files
from pytest_granularity.gate.baseline import (
    Baseline,
    BaselineError,
    Entry,
    Thresholds,
    compare,
    load_baseline,
    run_regression,
)
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.routing.routers import Router, RouterError
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import RunSettings, run_task
from pytest_granularity.run.taskcheck import check_task_file
from pytest_granularity.verifier.verify import VERIFIER_DIR, verify

EXIT_ZERO = "import os\nos._exit(0)\n"
SYS_EXIT_ZERO = "import sys\nsys.exit(0)\n"
FAILING = "2 of 2 verifier tests did not pass"


def _verdict(task, plant: dict[str, str], solved: bool = False):
    """The verifier's verdict on the task's workspace with ``plant`` written into it."""
    with Workspace.for_task(task) as ws:
        if solved:
            ws.apply(solution_files(task), task.solution_delete)
        for rel, text in plant.items():
            (ws.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws.root / rel).write_text(text)
        return verify(task, ws)


def _prepend(task, rel: str, code: str) -> dict[str, str]:
    return {rel: code + (task.fixture / rel).read_text()}


# --- the verifier: nothing in the workspace decides the verdict -------------------------------


@pytest.mark.parametrize("module", ["pytest.py", "_pytest/__init__.py", "pluggy.py", "pytest/__init__.py"])
def test_a_planted_pytest_module_is_never_imported(fix_add, module):
    verdict = _verdict(fix_add, {module: SYS_EXIT_ZERO})
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith(f"[verifier] {FAILING}")


def test_a_planted_pytest_cannot_break_a_solved_run(fix_add):
    assert _verdict(fix_add, {"pytest.py": "raise RuntimeError('planted')\n"}, solved=True).accepted


def test_exit_zero_at_import_of_the_project_is_a_failed_run(fix_add):
    verdict = _verdict(fix_add, _prepend(fix_add, "calc/__init__.py", EXIT_ZERO))
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith("[verifier] pytest ended (exit code 0) without recording its results")


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_signal_the_project_sends_itself_is_a_failed_run_not_an_error_row(fix_add, signum):
    """An error row is left out of the success rate: a workspace that kills its own verifier must fail."""
    kill = f"import os\nos.kill(os.getpid(), {int(signum)})\n"
    verdict = _verdict(fix_add, _prepend(fix_add, "calc/__init__.py", kill), solved=True)
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith(f"[verifier] pytest was killed by signal {int(signum)} without recording")


def test_system_exit_at_import_of_the_project_is_a_failed_run(fix_add):
    verdict = _verdict(fix_add, _prepend(fix_add, "calc/__init__.py", "raise SystemExit(0)\n"))
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith("[verifier] pytest crashed in code from the workspace")


def test_exit_zero_at_interpreter_exit_is_a_failed_run(fix_add):
    verdict = _verdict(
        fix_add, _prepend(fix_add, "calc/__init__.py", "import atexit, os\natexit.register(os._exit, 0)\n")
    )
    assert not verdict.accepted and verdict.output.startswith(f"[verifier] {FAILING}")


def test_code_that_rewrites_reports_to_passed_is_caught_by_the_canary(fix_add):
    tamper = (
        "import _pytest.reports as r\n"
        "_f = r.TestReport.from_item_and_call.__func__\n"
        "def _passed(cls, item, call):\n"
        "    rep = _f(cls, item, call)\n"
        "    rep.outcome, rep.longrepr = 'passed', None\n"
        "    return rep\n"
        "r.TestReport.from_item_and_call = classmethod(_passed)\n"
    )
    verdict = _verdict(fix_add, _prepend(fix_add, "calc/__init__.py", tamper))
    assert not verdict.accepted and verdict.infrastructure_error is None
    assert verdict.output.startswith("[verifier] the canary test that must fail ended passed")


DESELECT_ALL = "def pytest_collection_modifyitems(config, items):\n    config.hook.pytest_deselected(items=list(items))\n    items[:] = []\n"
SKIP_ALL = "import pytest\ndef pytest_collection_modifyitems(items):\n    for i in items:\n        i.add_marker(pytest.mark.skip)\n"


@pytest.mark.parametrize(
    "plant",
    [
        {"conftest.py": DESELECT_ALL},
        {"conftest.py": SKIP_ALL},
        {"_granularity_verifier/conftest.py": SKIP_ALL},
        {"pytest.ini": "[pytest]\naddopts = -k matches_nothing\n"},
        {"pytest.ini": "[pytest]\naddopts = -p skip_all\n", "skip_all.py": SKIP_ALL},
        {"tox.ini": "[pytest]\naddopts = --deselect _granularity_verifier\n"},
        {"setup.cfg": "[tool:pytest]\naddopts = -k matches_nothing\n"},
        {"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-k matches_nothing'\n"},
    ],
    ids=[
        "conftest-deselect",
        "conftest-skip",
        "verifier-dir-conftest",
        "pytest.ini",
        "ini-plugin",
        "tox.ini",
        "setup.cfg",
        "pyproject",
    ],
)
def test_agent_written_config_and_conftests_are_ignored(fix_add, plant):
    verdict = _verdict(fix_add, plant)
    assert not verdict.accepted and verdict.output.startswith(f"[verifier] {FAILING}")


def test_agent_written_config_cannot_break_a_solved_run(fix_add):
    plant = {
        "pytest.ini": "[pytest]\naddopts = -p no:python --strict-config -x\nbogus = 1\n",
        "conftest.py": "raise SystemExit(3)\n",
    }
    assert _verdict(fix_add, plant, solved=True).accepted


@pytest.mark.parametrize("name", ["sitecustomize.py", "usercustomize.py", "granularity.pth"])
def test_python_startup_hooks_in_the_workspace_do_not_run(fix_add, name):
    code = "import os; os._exit(3)\n"
    assert _verdict(fix_add, {name: code}, solved=True).accepted


def test_a_workspace_on_pythonpath_is_dropped(fix_add, monkeypatch):
    with Workspace.for_task(fix_add) as ws:
        (ws.root / "pytest.py").write_text(SYS_EXIT_ZERO + "# first on PYTHONPATH\n")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ws.root), "."]))
        verdict = verify(fix_add, ws)
    assert not verdict.accepted and verdict.output.startswith(f"[verifier] {FAILING}")


def test_a_skipped_verifier_test_is_a_failed_run_unless_the_task_allows_it(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import pytest\nfrom calc.ops import add\n\ndef test_add():\n    assert add(1, 1) == 2\n\n"
        "@pytest.mark.skip(reason='not today')\ndef test_later():\n    assert False\n"
    )
    verdict = _verdict(fix_add, {}, solved=True)
    assert not verdict.accepted
    assert verdict.output.startswith(
        "[verifier] 1 of 2 verifier tests did not pass: _granularity_verifier/test_verify_fix_add.py::test_later (skipped)"
    )
    fix_add.path.write_text(
        fix_add.path.read_text().replace("timeout_seconds: 30", "timeout_seconds: 30\n  allow_skips: true")
    )
    assert _verdict(load_task(fix_add.path), {}, solved=True).accepted


def test_an_expected_failure_in_the_verifier_is_not_a_pass(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import pytest\n\n@pytest.mark.xfail(reason='known')\ndef test_known():\n    assert False\n"
    )
    verdict = _verdict(fix_add, {}, solved=True)
    assert not verdict.accepted and "test_known (xfailed)" in verdict.output


def test_a_verifier_folder_symlinked_outside_is_replaced_not_written_through(fix_add, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    with Workspace.for_task(fix_add) as ws:
        ws.apply(solution_files(fix_add), fix_add.solution_delete)
        (ws.root / VERIFIER_DIR).symlink_to(outside, target_is_directory=True)
        verdict = verify(fix_add, ws)
        assert not (ws.root / VERIFIER_DIR).exists()
    assert verdict.accepted and list(outside.iterdir()) == []


# --- router.json -------------------------------------------------------------------------------

ROUTER = json.loads((REPO / "router.json").read_text())


def _set(tree: str, field: str, index: int, value):
    def mutate(doc):
        doc[tree][field][index] = value

    return mutate


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            _set("recovery_tree", "children_left", 2, 1),
            "field 'recovery_tree.children_left[2]': node 1 is reached twice (a cycle or a shared child)",
        ),
        (
            _set("recovery_tree", "children_right", 2, 0),
            "field 'recovery_tree.children_right[2]': child 0 is not a node (1 to 4; node 0 is the root; -1 marks a leaf)",
        ),
        (
            _set("recovery_tree", "children_left", 0, 999),
            "field 'recovery_tree.children_left[0]': child 999 is not a node",
        ),
        (
            _set("recovery_tree", "feature", 0, 99),
            "field 'recovery_tree.feature[0]': 99 is not a feature index (0 to 7)",
        ),
        (
            _set("recovery_tree", "threshold", 0, "high"),
            "field 'recovery_tree.threshold.0': 'high' is not of type 'number'",
        ),
        (
            _set("recovery_tree", "children_right", 0, -1),
            "field 'recovery_tree.children_left[0]': node 0 has one child (1, -1); a node has two or none",
        ),
        (
            _set("recovery_tree", "classes", 0, "panic"),
            "field 'recovery_tree.classes': unknown class 'panic'; known: degrade, stop",
        ),
        (_set("mode_tree", "features", 0, "mood"), "field 'mode_tree.features': "),
        (
            lambda doc: doc["recovery_tree"]["value"].pop(),
            "field 'recovery_tree.value': has 4 entries, 'feature' has 5",
        ),
        (
            lambda doc: doc["recovery_tree"]["value"].__setitem__(1, [1.0]),
            "field 'recovery_tree.value[1]': has 1 counts for 2 classes",
        ),
        (lambda doc: doc.update(version=2), "field 'version': 2 is not supported (this release reads version 1)"),
        (lambda doc: doc.update(format="my router"), "field 'format': not a pytest-granularity router file"),
        (lambda doc: doc.pop("recovery_tree"), "field '<root>': 'recovery_tree' is a required property"),
    ],
    ids=[
        "cycle",
        "back-to-root",
        "child-out-of-range",
        "feature-out-of-range",
        "wrong-type",
        "one-child",
        "unknown-class",
        "unknown-feature",
        "short-array",
        "short-value",
        "version",
        "format",
        "missing-tree",
    ],
)
def test_a_bad_router_is_one_error_naming_file_and_defect(tmp_path, mutate, message):
    document = copy.deepcopy(ROUTER)
    mutate(document)
    path = tmp_path / "router.json"
    path.write_text(json.dumps(document))
    with pytest.raises(RouterError) as raised:
        Router.load(path)
    assert str(raised.value).startswith(f"{path}: {message}")


def test_an_unreachable_router_node_is_an_error(tmp_path):
    document = copy.deepcopy(ROUTER)
    tree = document["recovery_tree"]
    for field in ("feature", "threshold", "children_left", "children_right", "value"):
        tree[field].append(copy.deepcopy(tree[field][-1]))
    path = tmp_path / "router.json"
    path.write_text(json.dumps(document))
    with pytest.raises(
        RouterError, match=r"field 'recovery_tree.children_left': node 5 is not reachable from the root"
    ):
        Router.load(path)


def test_a_router_that_is_not_json_is_an_error(tmp_path):
    path = tmp_path / "router.json"
    path.write_bytes(b"\xff{")
    with pytest.raises(RouterError, match="cannot read the router"):
        Router.load(path)


# --- fixtures and task paths -------------------------------------------------------------------


def test_a_fixture_symlink_to_a_file_outside_is_an_error_naming_it(fix_add, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not copy me")
    (fix_add.fixture / "calc" / "leak.txt").symlink_to(os.path.relpath(secret, fix_add.fixture / "calc"))
    result = run_task(fix_add, FIXED_POLICIES["micro"], "none", RunSettings(agent=ReferenceAgent))
    assert result.outcome == "error"
    assert (
        result.error
        == f"{fix_add.fixture / 'calc' / 'leak.txt'}: a symlink that points outside {fix_add.fixture} (to {secret})"
    )
    assert "do not copy me" not in json.dumps(result.to_dict())


def test_an_absolute_fixture_symlink_is_an_error(fix_add):
    (fix_add.fixture / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(WorkspaceError, match=r"passwd: a symlink to the absolute path /etc/passwd"):
        Workspace.for_task(fix_add)


def test_a_fixture_symlink_loop_is_a_clear_error_in_runs_and_tasks_check(fix_add):
    (fix_add.fixture / "loop").symlink_to("loop")
    with pytest.raises(WorkspaceError, match=r"loop: a symlink loop \(it points to loop\)"):
        Workspace.for_task(fix_add)
    check = check_task_file(fix_add.path, MacroRegistry.load(), adversaries=False)
    assert check.problems == (f"{fix_add.fixture / 'loop'}: a symlink loop (it points to loop)",)


def test_a_symlink_inside_the_fixture_is_kept_as_a_link(fix_add):
    (fix_add.fixture / "calc" / "alias.py").symlink_to("ops.py")
    with Workspace.for_task(fix_add) as ws:
        link = ws.root / "calc" / "alias.py"
        assert link.is_symlink() and os.readlink(link) == "ops.py"
        assert ws.resolve("calc/alias.py").resolve() == ws.root / "calc" / "ops.py"


@pytest.mark.parametrize(
    ("field", "old", "new"),
    [
        ("solution.overlay", "overlay: solution/", "overlay: ../../minipkg"),
        ("verifier.tests", "tests: verifier/", "tests: ../../minipkg/tests"),
        ("setup", "setup: setup/", "setup: ../../minipkg"),
        ("setup", "setup: setup/", "setup: ."),
    ],
)
def test_task_folders_must_be_inside_the_task_folder(fix_add, field, old, new):
    fix_add.path.write_text(fix_add.path.read_text().replace(old, new))
    with pytest.raises(TaskError) as raised:
        load_task(fix_add.path)
    assert raised.value.field == field and "outside the task's folder" in raised.value.message


def test_a_task_folder_symlinked_outside_is_refused(fix_add, tmp_path):
    shutil.rmtree(fix_add.path.parent / "setup")
    (fix_add.path.parent / "setup").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(TaskError, match=r"field 'setup': 'setup/' resolves to .*, outside the task's folder"):
        load_task(fix_add.path)


def test_a_fixture_may_live_anywhere(fix_add, tmp_path):
    elsewhere = tmp_path / "their-repo"
    shutil.copytree(fix_add.fixture, elsewhere)
    fix_add.path.write_text(
        fix_add.path.read_text().replace(
            "fixture: ../../minipkg", f"fixture: {os.path.relpath(elsewhere, fix_add.path.parent)}"
        )
    )
    assert load_task(fix_add.path).fixture == elsewhere.resolve()


def test_non_utf8_task_file_is_an_error_naming_it(fix_add):
    fix_add.path.write_bytes(fix_add.path.read_bytes().replace(b"Fix it.", b"Fix it \xff."))
    where = fix_add.path.read_bytes().index(b"\xff")
    with pytest.raises(TaskError) as raised:
        load_task(fix_add.path)
    assert str(raised.value) == f"{fix_add.path}: field '<file>': not UTF-8 text (byte {where} is 0xff)"


# --- collection and options (end to end) -------------------------------------------------------


def _edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def test_an_unknown_macro_is_a_collection_error_not_a_run(project):
    task = project.path / "tasks/fix-add/task.yaml"
    _edit(task, "skill: replace_and_verify", "skill: replace_and_verfy")
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*{task}: macro.skill: no macro named 'replace_and_verfy' (known: *"])
    assert "Traceback" not in result.stdout.str()


def test_macro_arguments_the_schema_refuses_are_a_collection_error(project):
    _edit(project.path / "tasks/fix-add/task.yaml", 'old: "SCALE = 2"', "old: 2")
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*task.yaml: macro.args.old: 2 is not of type 'string'*"])


def test_duplicate_task_ids_name_both_files(project):
    shutil.copytree(project.path / "tasks", project.path / "more")
    result = project.runpytest("tasks", "more", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    first, second = project.path / "tasks/fix-add/task.yaml", project.path / "more/fix-add/task.yaml"
    result.stdout.fnmatch_lines(
        [f"*{second}: field 'id': 'fix-add' is also the id of {first}; task ids must be unique*"]
    )


def test_an_undecodable_task_is_a_collection_error(project):
    task = project.path / "tasks/fix-add/task.yaml"
    task.write_bytes(task.read_bytes() + b"# \xc3\x28\n")
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*{task}: field '<file>': not UTF-8 text*"])
    assert "Traceback" not in result.stdout.str()


def test_the_fixtures_of_the_collected_tasks_are_not_collected(project):
    result = project.runpytest("--granularity=micro", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "minipkg" not in result.stdout.str()


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--granularity-report", "{dir}", "--granularity-report: {dir} is a folder; give the path of a file to write"),
        (
            "--granularity-report",
            "{dir}/out.json",
            "--granularity-report: {dir}/out.jsonl is a folder; give the path of a file to write",
        ),
        (
            "--granularity-report",
            "{file}/report.json",
            "--granularity-report: cannot create {file}/report.json: {file} is a file, not a folder",
        ),
        ("--granularity-report", "/proc/granularity/report.json", "--granularity-report: cannot write in /proc: *"),
        ("--granularity-plot", "{dir}", "--granularity-plot: {dir} is a folder; give the path of a file to write"),
        (
            "--granularity-html",
            "{file}/page.html",
            "--granularity-html: cannot create {file}/page.html: {file} is a file, not a folder",
        ),
        (
            "--granularity-max-steps",
            "0",
            "--granularity-max-steps: 0 must be at least 1 (leave it out to use each task's own limit)",
        ),
        ("--granularity-max-steps", "-3", "--granularity-max-steps: -3 must be at least 1*"),
        ("--granularity-retrieval-k", "-1", "--granularity-retrieval-k: -1 must not be negative"),
        ("--granularity-breaker", "-2", "--granularity-breaker: -2 must not be negative"),
        ("--granularity-shard", "3/2", "--granularity-shard: '3/2' is not I/N with 1 <= I <= N*"),
        (
            "--granularity-max-token-increase",
            "lots",
            "--granularity-max-token-increase: 'lots' is not a number or a percentage*",
        ),
        ("--granularity-max-success-drop", "-1", "--granularity-max-success-drop: '-1' must not be negative"),
    ],
)
def test_bad_options_are_usage_errors_before_any_run(project, option, value, message):
    folder, blocker = project.path / "out", project.path / "blocker"
    (folder / "out.jsonl").mkdir(parents=True)
    blocker.write_text("")
    fill = {"dir": folder, "file": blocker}
    result = project.runpytest("tasks", "--granularity=micro", f"{option}={value.format(**fill)}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message.format(**fill)}"])


def test_a_broken_router_is_a_usage_error_for_the_learned_policy(project):
    document = copy.deepcopy(ROUTER)
    document["recovery_tree"]["children_left"][2] = 0
    (project.path / "router.json").write_text(json.dumps(document))
    result = project.runpytest("tasks", "--granularity=learned")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = f"ERROR: --granularity=learned: {project.path / 'router.json'}: field 'recovery_tree.children_left[2]': child 0 is not a node"
    assert expected in result.stderr.str()


def test_tasks_check_reports_an_undecodable_task_without_a_traceback(fix_add, capsys):
    from pytest_granularity.cli import main

    fix_add.path.write_bytes(b"id: fix-add\nprompt: \xff\n")
    assert main(["tasks", "check", str(fix_add.path.parent)]) == 1
    out = capsys.readouterr().out
    assert f"{fix_add.path}: field '<file>': not UTF-8 text (byte 20 is 0xff)" in out and "Traceback" not in out


def test_tasks_check_fails_a_task_a_cheating_agent_passes(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import subprocess, sys\n\ndef test_project_suite():\n"
        "    assert subprocess.run([sys.executable, '-m', 'pytest', '-q', 'tests']).returncode == 0\n"
    )
    check = check_task_file(fix_add.path, MacroRegistry.load())
    assert (
        "the cheating agent 'fake-pytest' (plants pytest.py and pluggy.py that exit 0) passes the verifier"
        in check.problems
    )


# --- the gate's baseline -----------------------------------------------------------------------


def _result(tokens: int, success: bool = True) -> RunResult:
    return RunResult(
        task="t",
        family="simple",
        policy="micro",
        fault="none",
        outcome="passed" if success else "failed",
        mode="micro",
        steps=3,
        tokens=tokens,
        prompt_tokens=tokens,
        completion_tokens=0,
        macro_calls=0,
        stop_reason="finish",
    )


def test_a_baseline_of_zero_tokens_makes_any_tokens_a_rise():
    message = run_regression(Entry(True, 3, 0), _result(500), Thresholds())
    assert message is not None and "tokens rose from 0" in message
    report = compare(Baseline({"t|micro|none": Entry(True, 3, 0)}), [_result(500)], Thresholds())
    assert report.failed and any("mean tokens rose 0.0 -> 500.0 (from 0)" in r for r in report.regressions)
    assert not compare(Baseline({"t|micro|none": Entry(True, 3, 0)}), [_result(0)], Thresholds()).failed


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        (
            {"t|micro|none": {"success": True, "steps": 3, "tokens": "many"}},
            "field 'runs.t|micro|none.tokens': 'many' is not of type 'integer'",
        ),
        (
            {"t|micro|none": {"success": True, "steps": 3, "tokens": -5}},
            "field 'runs.t|micro|none.tokens': -5 is less than the minimum of 0",
        ),
        (
            {"t|micro|none": {"success": "yes", "steps": 3, "tokens": 5}},
            "field 'runs.t|micro|none.success': 'yes' is not of type 'boolean'",
        ),
        ({"t|micro|none": {"success": True, "tokens": 5}}, "field 'runs.t|micro|none': 'steps' is a required property"),
        ({"just-a-task": {"success": True, "steps": 3, "tokens": 5}}, "field 'runs': 'just-a-task' does not match"),
        ([], "field 'runs': [] is not of type 'object'"),
    ],
    ids=["tokens-type", "negative", "success-type", "missing-steps", "bad-key", "runs-list"],
)
def test_a_malformed_baseline_names_the_field(tmp_path, runs, message):
    (tmp_path / "baseline.json").write_text(json.dumps({"schema_version": 1, "runs": runs}))
    with pytest.raises(BaselineError) as raised:
        load_baseline("baseline.json", tmp_path)
    assert str(raised.value).startswith(f"baseline.json: {message}")


def test_tasks_check_spread_over_workers_reports_in_order_what_one_worker_does(fix_add, capsys):
    from pytest_granularity.cli import main

    folder = fix_add.path.parent.parent
    broken = folder / "broken"
    shutil.copytree(fix_add.path.parent, broken)
    (broken / "task.yaml").write_bytes(b"id: broken\nprompt: \xff\n")
    outputs = []
    for jobs in ("1", "2"):
        assert main(["tasks", "check", "--no-adversaries", "--jobs", jobs, str(folder)]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "[1/2] FAILED broken" in outputs[0] and "[2/2] ok fix-add" in outputs[0]


def test_tasks_check_fails_two_tasks_with_one_id(fix_add, capsys):
    """A run's key is its task's id: two tasks with one would count each other's runs."""
    from pytest_granularity.cli import main

    folder = fix_add.path.parent.parent
    twin = folder.parent / "more" / "fix-add"  # an id must equal its folder's name: the twin is elsewhere
    shutil.copytree(fix_add.path.parent, twin)
    argv = ["tasks", "check", "--no-adversaries", "--jobs", "1", str(folder), str(twin.parent)]
    assert main(argv) == 1, "ACCEPTED"
    out = capsys.readouterr().out
    assert f"    id: 'fix-add' is also the id of {twin / 'task.yaml'}" in out, f"UNCLEAR: {out[-600:]}"
    assert f"    id: 'fix-add' is also the id of {fix_add.path}" in out, f"UNCLEAR: {out[-600:]}"


def test_tasks_check_fails_a_solution_that_links_outside_its_task(fix_add):
    link = fix_add.solution_overlay / "calc" / "passwd"
    link.symlink_to("/etc/passwd")
    check = check_task_file(fix_add.path, MacroRegistry.load(), adversaries=False)
    expected = (
        f"{link}: a symlink to the absolute path /etc/passwd; only relative links inside "
        f"{fix_add.solution_overlay.resolve()} are copied"
    )
    assert check.problems == (expected,), f"ACCEPTED: {check.problems}"


def test_tasks_check_refuses_no_workers(fix_add, capsys):
    from pytest_granularity.cli import main

    assert main(["tasks", "check", "--jobs", "0", str(fix_add.path.parent)]) == 2
    assert capsys.readouterr().err == "granularity tasks check: --jobs 0: must be at least 1\n"
