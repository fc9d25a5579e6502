"""Bad baseline and router files, options, task files, fixtures and macro code, in a run.

Each case asserts one outcome: a one-line error naming the input and the problem (a usage or
collection error before any run), an infrastructure error kept apart from agent failures, or
correct handling; every case is under the time bound of ``bad_input_kit``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from bad_input_kit import BOUND_SECONDS, assert_error, time_bound
from conftest import DATA, REPO, needs_bwrap

from pytest_granularity.core.failures import FailureClass
from pytest_granularity.core.schemas import DefinitionError
from pytest_granularity.core.tasks import TaskError, load_task
from pytest_granularity.core.workspace import Workspace, WorkspaceError, solution_files
from pytest_granularity.gate.baseline import BaselineError, load_baseline
from pytest_granularity.macros import MacroContext, MacroRegistry, invoke
from pytest_granularity.macros.contract import load_macro
from pytest_granularity.process.sandbox import select
from pytest_granularity.routing.routers import Router, RouterError
from pytest_granularity.run import contract_checks
from pytest_granularity.run.contract_checks import CheckFailed, CheckSkipped, Subject, run_check
from pytest_granularity.verifier.verify import verify

NESTED = "[" * 100_000 + "]" * 100_000
ROUTER = json.loads((REPO / "router.json").read_text())

# --- baseline and router files -----------------------------------------------------------------

BASELINES = [
    ("nested", NESTED.encode(), "baseline.json: not a pytest-granularity baseline: nested too deeply to read"),
    ("list", b"[]", "baseline.json: field '<root>': [] is not of type 'object'"),
    (
        "not-utf8",
        b'{"runs": "\xff"}',
        "baseline.json: not a pytest-granularity baseline: not UTF-8 text (byte 10 is 0xff)",
    ),
    (
        "not-json",
        b"{runs",
        "baseline.json: not a pytest-granularity baseline: not JSON (line 1, column 2: Expecting property name enclosed in double quotes)",
    ),
    (
        "huge-value",
        json.dumps(
            {"schema_version": 1, "runs": {"t|micro|none": {"success": True, "steps": 3, "tokens": "x" * 10**6}}}
        ).encode(),
        "baseline.json: field 'runs.t|micro|none.tokens': 'xxxx*... is not of type 'integer'",
    ),
    ("empty", b"", "baseline.json: not a pytest-granularity baseline: not JSON (line 1, column 1: Expecting value)"),
]


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in BASELINES], ids=[c[0] for c in BASELINES])
def test_a_bad_baseline_file_is_one_error(tmp_path, data, message):
    (tmp_path / "baseline.json").write_bytes(data)
    assert_error(lambda: load_baseline("baseline.json", tmp_path), BaselineError, message)


def test_a_baseline_that_is_a_folder_is_one_error(tmp_path):
    (tmp_path / "baseline.json").mkdir()
    assert_error(
        lambda: load_baseline("baseline.json", tmp_path),
        BaselineError,
        f"{tmp_path / 'baseline.json'}: cannot read the baseline: Is a directory",
    )


ROUTERS = [
    ("nested", NESTED.encode(), "{path}: cannot read the router: nested too deeply to read"),
    ("list", b"[]", "{path}: field '<root>': [] is not of type 'object'"),
    ("not-utf8", b"{\xff}", "{path}: cannot read the router: not UTF-8 text (byte 1 is 0xff)"),
    ("empty", b"", "{path}: cannot read the router: not JSON (line 1, column 1: Expecting value)"),
    (
        "huge-value",
        json.dumps({**ROUTER, "format": "y" * 10**6}).encode(),
        "{path}: field 'format': not a pytest-granularity router file (its format is 'yyyy*...)",
    ),
]


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in ROUTERS], ids=[c[0] for c in ROUTERS])
def test_a_bad_router_file_is_one_error(tmp_path, data, message):
    path = tmp_path / "router.json"
    path.write_bytes(data)
    assert_error(lambda: Router.load(path), RouterError, message.format(path=path))


def test_a_router_that_is_a_folder_is_one_error(tmp_path):
    (tmp_path / "router.json").mkdir()
    assert_error(
        lambda: Router.load(tmp_path / "router.json"),
        RouterError,
        f"{tmp_path / 'router.json'}: cannot read the router: Is a directory",
    )


# --- the plugin's options, end to end ----------------------------------------------------------


def _usage_error(project: pytest.Pytester, *args: str) -> str:
    with time_bound():
        result = project.runpytest("tasks", *args)
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text and "INTERNALERROR" not in text, f"TRACEBACK: {text[-400:]}"
    assert result.ret != 0, f"ACCEPTED: exit 0: {text[-300:]}"
    assert result.ret == pytest.ExitCode.USAGE_ERROR, f"UNCLEAR: exit {result.ret}: {text[-400:]}"
    errors = [line for line in result.stderr.str().splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1, f"UNCLEAR: {result.stderr.str()[-400:]}"
    return errors[0]


OPTIONS = [
    (
        "empty-policy",
        ["--granularity="],
        "ERROR: --granularity: no policy named; choose from micro, macro, hybrid, heuristic, learned or all",
    ),
    (
        "comma-policy",
        ["--granularity=,"],
        "ERROR: --granularity: no policy named; choose from micro, macro, hybrid, heuristic, learned or all",
    ),
    (
        "success-drop-above-one",
        ["--granularity=micro", "--granularity-max-success-drop=2"],
        "ERROR: --granularity-max-success-drop: 2 is more than 1 (a success rate cannot drop by more than 100%)",
    ),
    (
        "success-drop-percent",
        ["--granularity=micro", "--granularity-max-success-drop=150%"],
        "ERROR: --granularity-max-success-drop: 1.5 is more than 1 (a success rate cannot drop by more than 100%)",
    ),
    ("unknown-policy", ["--granularity=mikro"], "ERROR: --granularity: unknown policy mikro; choose from *"),
    (
        "epochs-zero",
        ["--granularity=micro", "--granularity-epochs=0"],
        "ERROR: --granularity-epochs: must be at least 1",
    ),
    (
        "alpha-one",
        ["--granularity=micro", "--granularity-alpha=1"],
        "ERROR: --granularity-alpha: 1 is not between 0 and 1",
    ),
    (
        "report-dev-null",
        ["--granularity=micro", "--granularity-report=/dev/null"],
        "ERROR: --granularity-report: /dev/null is a character device, not a regular file; give the path of a file *",
    ),
    (
        "plot-dev-full",
        ["--granularity=micro", "--granularity-plot=/dev/full"],
        "ERROR: --granularity-plot: /dev/full is a character device, not a regular file; give the path of a file *",
    ),
    (
        "temperature-not-a-number",
        ["--granularity=micro", "--granularity-temperature=abc"],
        "ERROR: --granularity-temperature: 'abc' is not a number",
    ),
    (
        "temperature-nan",
        ["--granularity=micro", "--granularity-temperature=nan"],
        "ERROR: --granularity-temperature: 'nan' is not a finite number",
    ),
    (
        "temperature-inf",
        ["--granularity=micro", "--granularity-temperature=inf"],
        "ERROR: --granularity-temperature: 'inf' is not a finite number",
    ),
    (
        "request-timeout-negative",
        ["--granularity=micro", "--granularity-request-timeout=-5"],
        "ERROR: --granularity-request-timeout: -5 must be at least 0.1",
    ),
    (
        "request-timeout-inf",
        ["--granularity=micro", "--granularity-request-timeout=inf"],
        "ERROR: --granularity-request-timeout: 'inf' is not a finite number",
    ),
    (
        "completion-cap-not-a-number",
        ["--granularity=micro", "--granularity-max-completion-tokens=many"],
        "ERROR: --granularity-max-completion-tokens: 'many' is not a whole number",
    ),
    (
        "context-not-a-number",
        ["--granularity=micro", "--granularity-local-ctx=8k"],
        "ERROR: --granularity-local-ctx: '8k' is not a whole number",
    ),
    (
        "retries-unbounded",
        ["--granularity=micro", "--granularity-model-retries=1000000"],
        "ERROR: --granularity-model-retries: 1000000 must be at most 10",
    ),
    (
        "model-a-fifo",
        ["--granularity=micro", "--granularity-model=model.fifo"],
        "ERROR: --granularity-model: model.fifo is a FIFO, not a model file",
    ),
    (
        "local-model-a-fifo",
        ["--granularity=micro", "--granularity-agent=local", "--granularity-model=model.fifo"],
        "ERROR: --granularity-model: model.fifo is a FIFO, not a model file",
    ),
    (
        "retrieval-k",
        ["--granularity=micro", "--granularity-retrieval-k=-1"],
        "ERROR: --granularity-retrieval-k: -1 must not be negative",
    ),
]


@pytest.mark.parametrize(("args", "message"), [c[1:] for c in OPTIONS], ids=[c[0] for c in OPTIONS])
def test_a_bad_option_is_one_usage_error(project, args, message):
    from bad_input_kit import matches

    os.mkfifo(project.path / "model.fifo")
    line = _usage_error(project, *args)
    assert matches(line, message), f"UNCLEAR: {line!r} is not {message!r}"


INI = [
    (
        "granularity_max_success_drop = 3",
        "ERROR: --granularity-max-success-drop: 3 is more than 1 (a success rate cannot drop by more than 100%)",
    ),
    ("granularity_faults = some", "ERROR: granularity_faults: 'some' is not one of *"),
    ("granularity_sandbox = docker", "ERROR: granularity_sandbox: 'docker' is not one of *"),
    ("granularity_epochs = many", "ERROR: granularity_epochs: 'many' is not a whole number"),
]


@pytest.mark.parametrize(("line", "message"), INI, ids=[c[0].split(" ")[0] for c in INI])
def test_a_bad_ini_value_is_one_usage_error(project, line, message):
    from bad_input_kit import matches

    project.makeini(f"[pytest]\n{line}\n")
    error = _usage_error(project, "--granularity=micro")
    assert matches(error, message), f"UNCLEAR: {error!r} is not {message!r}"


@pytest.mark.parametrize("option", ["--granularity-baseline", "--granularity-router"])
@pytest.mark.parametrize("content", ["nested", "list"])
def test_a_bad_baseline_or_router_option_is_a_usage_error(project, option, content):
    (project.path / "bad.json").write_text(NESTED if content == "nested" else "[]")
    policy = "--granularity=learned" if option == "--granularity-router" else "--granularity=micro"
    line = _usage_error(project, policy, f"{option}=bad.json")
    assert "bad.json" in line and ("nested too deeply" in line or "is not of type 'object'" in line), f"UNCLEAR: {line}"


# --- task files and fixtures -------------------------------------------------------------------


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("fixture", ["..", "./", ".", "../fix-add", "./solution", "verifier/"])
def test_a_fixture_that_holds_or_lies_in_the_task_is_refused(fix_add, fixture):
    _edit(fix_add.path, "fixture: ../../minipkg", f"fixture: {fixture}")
    folder = fix_add.path.parent
    assert_error(
        lambda: load_task(fix_add.path),
        TaskError,
        f"{fix_add.path}: field 'fixture': '{fixture}' resolves to *, which * {folder}*:"
        " the agent would see the task's solution and verifier",
    )


def test_faults_on_a_task_without_a_reference_macro_are_refused(fix_add):
    text = fix_add.path.read_text()
    start = text.index("macro:")
    fix_add.path.write_text(text[:start] + "faults: [early, late]\n")
    assert_error(
        lambda: load_task(fix_add.path),
        TaskError,
        f"{fix_add.path}: field 'faults': a fault is injected into the task's reference macro call, and it has none ('macro')",
    )


def test_a_task_file_that_is_a_folder_is_a_collection_error(project):
    folder = project.path / "tasks" / "folder-task"
    (folder / "task.yaml").mkdir(parents=True)
    (folder / "verifier").mkdir()
    (folder / "verifier" / "test_hidden.py").write_text("def test_secret():\n    assert True\n")
    with time_bound():
        result = project.runpytest("tasks", "--granularity=micro", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert "Traceback" not in text, f"TRACEBACK: {text[-400:]}"
    assert result.ret == pytest.ExitCode.INTERRUPTED, f"ACCEPTED: exit {result.ret}: {text[-400:]}"
    assert f"{folder / 'task.yaml'}: field '<file>': a folder, not a task file" in text, f"UNCLEAR: {text[-600:]}"
    assert "test_secret" not in text, "ACCEPTED: the hidden verifier ran as an ordinary test"


def test_a_fixture_ref_on_a_folder_that_is_not_a_repository_is_one_error(fix_add, tmp_path):
    fixture = tmp_path / "plain"
    shutil.copytree(fix_add.fixture, fixture)
    _edit(fix_add.path, "fixture: ../../minipkg", f"fixture: {fixture}\nfixture_ref: v1")
    task = load_task(fix_add.path)
    assert_error(
        lambda: Workspace.for_task(task),
        WorkspaceError,
        f"{fix_add.path}: fixture_ref 'v1': {fixture} is not a git repository (fixture_ref names a commit in one)",
    )


def test_a_verifier_whose_tests_all_skip_is_a_failed_run_even_when_skips_are_allowed(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text(
        "import pytest\n\n@pytest.mark.skip(reason='later')\ndef test_add():\n    assert False\n"
    )
    _edit(fix_add.path, "timeout_seconds: 30", "timeout_seconds: 30\n  allow_skips: true")
    task = load_task(fix_add.path)
    with time_bound(), Workspace.for_task(task) as ws:
        ws.apply(solution_files(task), task.solution_delete)
        verdict = verify(task, ws)
    assert not verdict.accepted, "ACCEPTED: a verifier that ran no test passed the run"
    assert verdict.output.startswith(
        "[verifier] no verifier test ran: all 1 skipped (allow_skips lets some skip, not all)"
    ), f"UNCLEAR: {verdict.output[:300]}"


def test_a_verifier_test_that_exits_the_process_is_the_tasks_fault(fix_add):
    (fix_add.verifier_tests / "test_verify_fix_add.py").write_text("import os\n\ndef test_add():\n    os._exit(0)\n")
    with time_bound(), Workspace.for_task(fix_add) as ws:
        ws.apply(solution_files(fix_add), fix_add.solution_delete)
        verdict = verify(fix_add, ws)
    assert not verdict.accepted, "ACCEPTED: a verifier that exited passed the run"
    assert verdict.infrastructure_error == (
        "the verifier's own test _granularity_verifier/test_verify_fix_add.py::test_add ended the process (os._exit):"
        " the task's verifier is broken"
    ), f"UNCLEAR: {verdict.infrastructure_error} / {verdict.output[:200]}"


# --- macro code outside ``run``: under the macro's timeout and sandbox --------------------------

HANG_MACRO = DATA / "broken_macros" / "hang"
LOOP = "    while True:\n        pass\n"


def _macro(tmp_path: Path, part: str, body: str) -> Path:
    """A copy of the ``hang`` macro (timeout 1 s) whose ``run`` is quick and whose ``part`` starts with ``body``."""
    folder = tmp_path / f"bad-{part}"
    shutil.copytree(HANG_MACRO, folder)
    example = REPO / "pytest_granularity/macros/builtin/replace-and-verify/examples/basic"
    _edit(
        folder / "contract.yaml",
        "../../../../pytest_granularity/macros/builtin/replace-and-verify/examples/basic",
        str(example),
    )
    runtime = folder / "runtime.py"
    text = runtime.read_text().replace("    import time\n\n    time.sleep(60)\n", "")
    head = f"def {part}(ctx: MacroContext) -> list[str]:\n"
    runtime.write_text(text.replace(head, head + body))
    return folder


def _call(folder: Path, ws_root: Path, sandbox: str = "none"):
    macro = load_macro(folder)
    ws = Workspace(ws_root)
    args = {"files": ["calc/ops.py"], "old": "SCALE = 2", "new": "SCALE = 1", "tests": ["tests"]}
    chosen = select(sandbox)
    try:
        with time_bound(BOUND_SECONDS):
            return invoke(macro, MacroContext(ws, args, test_timeout=30, sandbox=chosen))
    finally:
        chosen.servers.stop()  # the session's end: the call's sandbox is its own


@pytest.fixture
def work(tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(DATA / "minipkg", root)
    _edit(root / "calc" / "ops.py", "SCALE = 1", "SCALE = 2")
    return root


@pytest.mark.parametrize("part", ["preconditions", "validate"])
def test_macro_code_that_loops_forever_is_stopped_at_the_macros_timeout(tmp_path, work, part):
    outcome = _call(_macro(tmp_path, part, LOOP), work)
    assert outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION and outcome.timed_out, f"UNCLEAR: {outcome}"
    name = "preconditions" if part == "preconditions" else "validation"
    assert outcome.reason == f"{name} stopped after its timeout of 1s; the workspace is left as the macro left it"


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
@pytest.mark.parametrize("code", [0, 3])
@pytest.mark.parametrize("part", ["preconditions", "validate"])
def test_macro_code_that_exits_the_process_is_an_executor_exception(tmp_path, work, capfd, part, code, sandbox):
    """In the sandbox the server took the call's end for the answer ("a malformed answer") and printed its own
    UnpicklingError on the next request."""
    outcome = _call(_macro(tmp_path, part, f"    import os\n    os._exit({code})\n"), work, sandbox)
    assert "Traceback" not in capfd.readouterr().err, "TRACEBACK: the macro's server printed one"
    assert outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION, f"UNCLEAR: {outcome}"
    name = "preconditions" if part == "preconditions" else "validation"
    assert outcome.reason == f"{name} failed: the macro's process died (exit code {code})", f"UNCLEAR: {outcome}"


@pytest.mark.parametrize("part", ["preconditions", "validate"])
def test_macro_code_that_raises_is_an_executor_exception_naming_the_part(tmp_path, work, part):
    outcome = _call(_macro(tmp_path, part, "    raise ValueError('broken')\n"), work)
    name = "preconditions" if part == "preconditions" else "validation"
    assert (outcome.failure_class, outcome.reason) == (
        FailureClass.EXECUTOR_EXCEPTION,
        f"{name} raised ValueError: broken",
    )


@needs_bwrap
@pytest.mark.parametrize("part", ["preconditions", "validate"])
def test_macro_code_that_writes_outside_is_refused_by_the_sandbox(tmp_path, work, part):
    target = tmp_path / f"outside-{part}.txt"
    outcome = _call(_macro(tmp_path, part, f"    open({str(target)!r}, 'w').write('x')\n"), work, "bwrap")
    assert not target.exists(), "WROTE-OUTSIDE"
    assert outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION and outcome.outside_writes == (str(target),), (
        f"UNCLEAR: {outcome}"
    )


@pytest.mark.parametrize("part", ["preconditions", "validate"])
def test_the_contract_checks_fail_a_macro_whose_code_hangs_naming_the_part(tmp_path, part):
    folder = _macro(tmp_path, part, LOOP)
    name = "preconditions" if part == "preconditions" else "validation"
    with time_bound():
        try:
            run_check("timeout", Subject(folder, Counter({"hang": 1})))
        except CheckFailed as exc:
            assert f"{name} stopped after its timeout of 1s" in str(exc), f"UNCLEAR: {exc}"
            return
    pytest.fail("ACCEPTED: the timeout check passed a macro whose code hangs")


def _checkable(tmp_path: Path) -> Path:
    """A ``hang`` macro that passes every contract check (its tests take more than a second on a busy machine), in
    a folder of its own name."""
    (tmp_path / "macros").mkdir()
    folder = _macro(tmp_path, "preconditions", "").rename(tmp_path / "macros" / "hang")
    _edit(folder / "contract.yaml", "timeout_seconds: 1", "timeout_seconds: 30")
    return folder


def _checked(folder: Path) -> dict[str, str]:
    """How each contract check ends for the macro in ``folder``, as ``check-contracts`` runs it beside the built-in
    macros: "passed", "skipped: why", "failed: evidence", or "TRACEBACK: ..." for anything else."""
    folders = contract_checks.macro_folders_to_check([folder.parent])
    names, by_name = contract_checks.contract_names(folders), contract_checks.contract_folders(folders)
    subject = Subject(folder.resolve(), names, folders=by_name)
    ended = {}
    for check in contract_checks.CHECKS:
        try:
            with time_bound():
                run_check(check, subject)
            ended[check] = "passed"
        except CheckSkipped as exc:
            ended[check] = f"skipped: {exc}"
        except CheckFailed as exc:
            ended[check] = f"failed: {exc}"
        except Exception as exc:
            ended[check] = f"TRACEBACK: {type(exc).__name__}: {str(exc)[:200]}"
    return ended


def _failed(ended: dict[str, str]) -> dict[str, str]:
    assert not [e for e in ended.values() if e.startswith("TRACEBACK")], f"TRACEBACK: {ended}"
    return {check: e for check, e in ended.items() if not e.startswith(("passed", "skipped"))}


def test_a_macro_that_depends_on_itself_fails_check_contracts_as_a_run_refuses_it(tmp_path):
    """check-contracts passed it (the dynamic checks skipped as "does not load") while a run refused it."""
    folder = _checkable(tmp_path)
    contract = folder / "contract.yaml"
    contract.write_text(contract.read_text() + "depends_on: [hang]\n")
    expected = "field 'depends_on': dependency cycle: hang -> hang"
    assert _failed(_checked(folder)) == {"dependencies": f"failed: contract.yaml: {expected}"}, "ACCEPTED or UNCLEAR"
    assert_error(lambda: MacroRegistry.load([folder.parent]), DefinitionError, f"{contract}: {expected}")


def test_an_unknown_fallback_skill_is_one_failed_check_not_a_traceback(tmp_path):
    """The faults check registered the macro alone: a DefinitionError and a 670-line pytest traceback."""
    folder = _checkable(tmp_path)
    contract = folder / "contract.yaml"
    contract.write_text(contract.read_text().replace("fallback_skill: null", "fallback_skill: nowhere"))
    ended = _checked(folder)
    assert _failed(ended) == {
        "fallback": "failed: contract.yaml: field 'fallback_skill': 'nowhere' is not a macro checked here"
    }
    assert (
        ended["faults"]
        == "skipped: contract.yaml: field 'fallback_skill': 'hang' falls back to nowhere, which no registered macro provides; see its 'fallback' check"
    )


FALLBACKS = {
    "missing": ("nowhere", "'nowhere' is not a macro checked here", "'hang' falls back to nowhere, which no *"),
    "itself": ("hang", "'hang' is this macro: a fallback is another macro", "'hang' is this macro: *"),
}


@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_a_fallback_skill_that_is_no_other_macro_fails_the_contract_checks_and_registration(tmp_path, case):
    """The executor skipped such a fallback silently: the macro recovered without the fallback it declared."""
    skill, check_message, load_message = FALLBACKS[case]
    folder = tmp_path / "macros" / "hang"
    shutil.copytree(HANG_MACRO, folder)
    contract = folder / "contract.yaml"
    contract.write_text(contract.read_text().replace("fallback_skill: null", f"fallback_skill: {skill}"))
    assert_error(
        lambda: run_check("fallback", Subject(folder, Counter({"hang": 1}))),
        CheckFailed,
        f"contract.yaml: field 'fallback_skill': {check_message}",
    )
    assert_error(
        lambda: MacroRegistry.load([tmp_path / "macros"]),
        DefinitionError,
        f"{contract}: field 'fallback_skill': {load_message}",
    )


def test_a_fixture_ref_on_a_real_repository_is_read(fix_add, tmp_path):
    """Correct handling: the same fixture, committed and tagged, materialises at its ref."""
    repo = tmp_path / "repo"
    shutil.copytree(fix_add.fixture, repo)
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1"],
        ["tag", "v1"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True)
    _edit(fix_add.path, "fixture: ../../minipkg", f"fixture: {repo}\nfixture_ref: v1")
    with time_bound(), Workspace.for_task(load_task(fix_add.path)) as ws:
        assert (ws.root / "README.md").read_text() == (repo / "README.md").read_text()


def _committed(folder: Path) -> None:
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1"],
        ["tag", "v1"],
    ):
        subprocess.run(["git", *command], cwd=folder, check=True)


@pytest.mark.parametrize("where", ["holds", "inside"])
def test_a_fixture_ref_whose_commit_holds_or_lies_in_another_task_is_refused(fix_add, tmp_path, where):
    """The fixture check read the working tree while the workspace came from the commit: another task's solution
    and verifier, committed and since removed from the working tree, were listed to the agent."""
    repo = tmp_path / "repo"
    shutil.copytree(fix_add.fixture, repo / "pkg")
    shutil.copytree(fix_add.path.parent, repo / "pkg" / "other-task" if where == "holds" else repo / "other-task")
    if where == "inside":
        shutil.copytree(fix_add.fixture, repo / "other-task" / "pkg")
    _committed(repo)
    shutil.rmtree(repo / "pkg" / "other-task" if where == "holds" else repo / "other-task" / "solution")
    fixture = repo / "pkg" if where == "holds" else repo / "other-task" / "pkg"
    (repo / "other-task" / "task.yaml").unlink(missing_ok=True)
    _edit(fix_add.path, "fixture: ../../minipkg", f"fixture: {fixture}\nfixture_ref: v1")
    relation = (
        "holds the task file other-task/task.yaml" if where == "holds" else "is inside the task folder other-task"
    )
    assert_error(
        lambda: Workspace.for_task(load_task(fix_add.path)).remove(),
        WorkspaceError,
        f"{fix_add.path}: fixture_ref 'v1': the fixture at that commit {relation}: the agent would see that task's files",
    )


@pytest.mark.parametrize("where", ["holds", "inside"])
def test_a_fixture_that_holds_or_lies_in_another_task_is_refused(fix_add, where):
    tasks = fix_add.path.parent.parent
    other = tasks / "bundle" / "other-task"
    shutil.copytree(fix_add.path.parent, other)
    if where == "holds":
        fixture, relation = "../bundle", f"holds the task file {other / 'task.yaml'}"
    else:
        fixture, relation = "../bundle/other-task/solution", f"is inside the task folder {other}"
    _edit(fix_add.path, "fixture: ../../minipkg", f"fixture: {fixture}")
    assert_error(
        lambda: load_task(fix_add.path),
        TaskError,
        f"{fix_add.path}: field 'fixture': '{fixture}' resolves to *, which {relation}:"
        " the agent would see that task's solution and verifier",
    )
