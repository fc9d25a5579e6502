"""The pytest plugin: every ``task.yaml`` becomes one test per policy (and fault).

``pytest --granularity=hybrid benchmark_tasks`` collects ``<task>[hybrid]`` items, plus
``<task>[hybrid-early]`` and ``<task>[hybrid-late]`` for tasks that list faults; with
``--granularity-epochs=N`` (N > 1) each of them N times, ``<task>[hybrid-e0]`` … An item passes
iff the task's verifier accepted the final workspace. Each run's record travels in the test
report's ``user_properties`` (so junitxml and pytest-xdist carry it) and the controller
collects them for the table at the end.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import github_output, hookspecs, interrupts
from .extensions import macro_roots
from .extensions import resolve as resolve_extensions
from .failures import FAULTS, NO_FAULT, InjectedFault
from .gate import (
    DEFAULT_BASELINE,
    Baseline,
    BaselineError,
    Entry,
    GateReport,
    Thresholds,
    load_baseline,
    parse_fraction,
    run_regression,
)
from .gate import compare as compare_to_baseline
from .macros.registry import DEFAULT_TOP_K
from .metrics import epoch_summaries, summarize
from .option_values import int_setting
from .output_paths import output_problem
from .plot import write_plot
from .policies import RECOVERY_OVERRIDES, Policy
from .report import render_report, write_report
from .result import ERROR, RECORD_KEY, RunResult, records_in
from .runner import RunSettings, run_task
from .sandbox import MODES as SANDBOX_MODES
from .sandbox import Sandbox, SandboxUnavailable
from .sandbox import select as select_sandbox
from .taskcheck import macro_call_problems
from .tasks import TASK_FILE, Task, TaskError, find_task_files, load_task

pytest_plugins = ["pytest_granularity.model_plugin"]

FAULT_SETS = ("declared", "all")
settings_key = pytest.StashKey[RunSettings]()
policies_key = pytest.StashKey[tuple[Policy, ...]]()
shard_key = pytest.StashKey["tuple[int, int] | None"]()
fault_set_key = pytest.StashKey[str]()
epochs_key = pytest.StashKey[int]()
gate_key = pytest.StashKey["GateSettings"]()
interrupts_key = pytest.StashKey[bool]()
fixtures_key = pytest.StashKey[frozenset[Path]]()
task_ids_key = pytest.StashKey[dict[str, Path]]()
sandbox_key = pytest.StashKey[Sandbox]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("granularity", "skill granularity benchmark (pytest-granularity)")
    group.addoption(
        "--granularity",
        default=None,
        metavar="POLICY[,POLICY]",
        help="run every task.yaml under the given paths with these policies (micro, macro, hybrid, heuristic, learned, or all).",
    )
    group.addoption(
        "--granularity-contracts",
        action="store_true",
        help="check every macro (built-in, --granularity-macros, plugins, and macro folders given as paths) against its contract, one test per check.",
    )
    group.addoption(
        "--granularity-retrieval-k",
        type=int,
        default=None,
        metavar="K",
        help="offer only the top K macros for a task (BM25); 0 offers all (default 5).",
    )
    group.addoption(
        "--granularity-breaker",
        type=int,
        default=None,
        metavar="N",
        help="disable a macro after N consecutive malfunctions in a session; 0 never (default 5).",
    )
    group.addoption(
        "--granularity-router",
        default=None,
        metavar="PATH",
        help="the learned policy's router (default: router.json in the rootdir).",
    )
    group.addoption("--granularity-agent", default=None, metavar="NAME", help="agent to drive (default: reference).")
    group.addoption(
        "--granularity-max-steps",
        type=int,
        default=None,
        metavar="N",
        help="step limit per run (default: the task's, else 40).",
    )
    group.addoption("--granularity-macros", default=None, metavar="PATH", help="a folder of extra macros to register.")
    group.addoption(
        "--granularity-report",
        default=None,
        metavar="PATH",
        help="write the summaries as JSON to PATH and every run record (with transcript) to PATH with .jsonl.",
    )
    group.addoption(
        "--granularity-plot",
        default=None,
        metavar="PATH",
        help="write a PNG of success against tokens (text chart without matplotlib).",
    )
    group.addoption(
        "--granularity-html",
        default=None,
        metavar="PATH",
        help="write one self-contained HTML page: the summary, the plot, and every run's transcript, transitions, macro log and diff.",
    )
    group.addoption(
        "--granularity-shard",
        default=None,
        metavar="I/N",
        help="run only shard I of N (whole tasks, a deterministic slice); merge the shards' reports with 'granularity merge'.",
    )
    group.addoption(
        "--granularity-faults",
        default=None,
        choices=FAULT_SETS,
        help="which faulted runs to add: declared (each task's faults: list, the default) or all "
        "(early and late on every task with a reference macro call, in every family).",
    )
    group.addoption(
        "--granularity-epochs",
        type=int,
        default=None,
        metavar="N",
        help="run every task, policy and fault N times (items <task>[<policy>-e<k>]), each with its own seed; the gate then tests for significance (default 1).",
    )
    group.addoption(
        "--granularity-seed",
        type=int,
        default=None,
        metavar="S",
        help="base seed of the agent; epoch k runs with seed S + k (default 0).",
    )
    group.addoption(
        "--granularity-recovery",
        default=None,
        choices=sorted(RECOVERY_OVERRIDES),
        help="override macro-first policies' recovery: never (the no-recovery baseline) or always (always degrade).",
    )
    group.addoption(
        "--granularity-sandbox",
        default=None,
        choices=SANDBOX_MODES,
        help="run tests, verifiers and macros in a bubblewrap sandbox: auto (when bwrap works here; the default), bwrap (required), none.",
    )
    gate = parser.getgroup("granularity-gate", "gate on a baseline (pytest-granularity)")
    gate.addoption(
        "--granularity-baseline",
        default=None,
        metavar="PATH|git:REF:PATH",
        help="compare with this baseline; fail on regressions.",
    )
    gate.addoption(
        "--granularity-update-baseline",
        action="store_true",
        help="write this session's runs as the baseline (and report stale entries).",
    )
    gate.addoption(
        "--granularity-max-token-increase",
        default=None,
        metavar="PCT",
        help="fail when a policy's mean tokens rise more than this (default 5%%).",
    )
    gate.addoption(
        "--granularity-max-success-drop",
        default=None,
        metavar="X",
        help="fail when a policy's success rate drops more than this (default 0).",
    )
    gate.addoption(
        "--granularity-test-token-tolerance",
        default=None,
        metavar="PCT",
        help="fail a test whose tokens rise more than this (default 10%%).",
    )
    gate.addoption(
        "--granularity-alpha",
        default=None,
        metavar="A",
        help="with epochs: the gate's false-alarm rate when nothing changed; a drop must be significant at this level (default 0.05).",
    )
    for name, help_text in (
        ("granularity_baseline", "baseline to gate on: a path relative to the rootdir, or git:REF:PATH"),
        ("granularity_max_token_increase", "default for --granularity-max-token-increase"),
        ("granularity_max_success_drop", "default for --granularity-max-success-drop"),
        ("granularity_test_token_tolerance", "default for --granularity-test-token-tolerance"),
        ("granularity_alpha", "default for --granularity-alpha"),
    ):
        parser.addini(name, help_text, default="")
    parser.addini("granularity_retrieval_k", "default for --granularity-retrieval-k", default="")
    parser.addini("granularity_faults", "default for --granularity-faults (declared or all)", default="")
    parser.addini("granularity_breaker", "default for --granularity-breaker", default="")
    parser.addini("granularity_epochs", "default for --granularity-epochs", default="")
    parser.addini("granularity_seed", "default for --granularity-seed", default="")
    parser.addini("granularity_agent", "agent to drive (default: reference)", default="reference")
    parser.addini("granularity_macros", "a folder of extra macros to register, relative to the rootdir", default="")
    parser.addini("granularity_sandbox", "default for --granularity-sandbox (auto, bwrap or none)", default="auto")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "granularity(policy, fault): a pytest-granularity benchmark run")
    if not (config.getoption("--granularity", None) or config.getoption("--granularity-contracts", False)):
        return
    _clean_up_on_interrupt(config)
    config.stash[sandbox_key] = _sandbox(config)
    if config.getoption("--granularity-contracts", False):
        from .contract_session import ContractSession

        config.pluginmanager.register(
            ContractSession(macro_roots(config), config.stash[sandbox_key]), "granularity-contracts"
        )
    if not config.getoption("--granularity", None):
        return
    from .model_plugin import run_settings

    _check_outputs(config)
    extensions = resolve_extensions(config)
    config.stash[policies_key] = extensions.policies
    config.stash[fault_set_key] = _fault_set(config)
    config.stash[shard_key] = _shard(config.getoption("--granularity-shard"))
    config.stash[epochs_key] = int_setting(config, "--granularity-epochs", "granularity_epochs", 1)
    if config.stash[epochs_key] < 1:
        raise pytest.UsageError("--granularity-epochs: must be at least 1")
    config.stash[settings_key] = RunSettings(
        agent=extensions.agent,
        macros=extensions.macros,
        max_steps=_max_steps(config),
        retrieval_k=int_setting(config, "--granularity-retrieval-k", "granularity_retrieval_k", DEFAULT_TOP_K),
        seed=int_setting(config, "--granularity-seed", "granularity_seed", 0),
        **run_settings(config),
        sandbox=config.stash[sandbox_key],
    )
    config.stash[fixtures_key] = _fixture_folders(config)
    config.stash[task_ids_key] = {}
    config.stash[gate_key] = _gate_settings(config)
    collector = RunCollector(config)
    config.pluginmanager.register(collector, "granularity-collector")
    if config.pluginmanager.hasplugin("html"):
        from .pytest_html_hooks import PytestHtmlHooks

        page = config.getoption("--granularity-html")
        config.pluginmanager.register(PytestHtmlHooks(config, Path(page) if page else None), "granularity-pytest-html")


def _clean_up_on_interrupt(config: pytest.Config) -> None:
    """SIGINT and SIGTERM kill the runs' process groups and remove their folders (see ``interrupts``).

    An xdist worker also asks to be sent SIGTERM when the controller dies, so killing the
    controller alone cleans up after every worker too.
    """
    config.stash[interrupts_key] = interrupts.install()
    if hasattr(config, "workerinput"):
        interrupts.die_with_parent()


def _check_outputs(config: pytest.Config) -> None:
    """Files written at the end must be writable now, not after the whole benchmark ran."""
    for option, companions in (
        ("--granularity-report", (".jsonl",)),
        ("--granularity-plot", ()),
        ("--granularity-html", ()),
    ):
        value = config.getoption(option)
        path = Path(value) if value else None
        problem = output_problem(path, [path.with_suffix(s) for s in companions]) if path else None
        if problem:
            raise pytest.UsageError(f"{option}: {problem}")


def _max_steps(config: pytest.Config) -> int | None:
    value = config.getoption("--granularity-max-steps")
    if value is not None and value < 1:
        raise pytest.UsageError(
            f"--granularity-max-steps: {value} must be at least 1 (leave it out to use each task's own limit)"
        )
    return value


def _fixture_folders(config: pytest.Config) -> frozenset[Path]:
    """The fixtures of the tasks being collected: projects to copy, never test modules to collect."""
    base = config.invocation_params.dir
    paths = [base / arg.split("::")[0] for arg in config.args] or [base]
    folders = set()
    for path in find_task_files(paths):
        try:
            folders.add(load_task(path).fixture.resolve())
        except TaskError:
            continue
    return frozenset(folders)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(interrupts_key, False):
        interrupts.uninstall()


def _sandbox(config: pytest.Config) -> Sandbox:
    mode = config.getoption("--granularity-sandbox") or config.getini("granularity_sandbox")
    if mode not in SANDBOX_MODES:
        raise pytest.UsageError(f"granularity_sandbox: '{mode}' is not one of {', '.join(SANDBOX_MODES)}")
    try:
        return select_sandbox(mode)
    except SandboxUnavailable as exc:
        raise pytest.UsageError(f"--granularity-sandbox=bwrap: {exc} (or choose auto or none)") from None


@dataclasses.dataclass(frozen=True)
class GateSettings:
    baseline: Baseline | None
    thresholds: Thresholds


def _option_or_ini(config: pytest.Config, option: str, ini: str) -> str | None:
    return config.getoption(option) or config.getini(ini) or None


def _gate_settings(config: pytest.Config) -> GateSettings:
    values = {}
    for field_name, option in (
        ("test_token_tolerance", "--granularity-test-token-tolerance"),
        ("max_token_increase", "--granularity-max-token-increase"),
        ("max_success_drop", "--granularity-max-success-drop"),
        ("alpha", "--granularity-alpha"),
    ):
        raw = _option_or_ini(config, option, option[2:].replace("-", "_"))
        if raw is not None:
            try:
                values[field_name] = parse_fraction(raw, option)
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
    if not 0 < values.get("alpha", 0.05) < 1:
        raise pytest.UsageError(f"--granularity-alpha: {values['alpha']:g} is not between 0 and 1")
    spec = _option_or_ini(config, "--granularity-baseline", "granularity_baseline")
    if (
        spec
        and config.getoption("--granularity-update-baseline")
        and not spec.startswith("git:")
        and not (config.rootpath / spec).exists()
    ):
        spec = None  # a first baseline: written at the end, nothing to compare with now
    try:
        baseline = load_baseline(spec, config.rootpath) if spec else None
    except BaselineError as exc:
        raise pytest.UsageError(f"--granularity-baseline: {exc}") from None
    return GateSettings(baseline, Thresholds(**values))


def _fault_set(config: pytest.Config) -> str:
    value = config.getoption("--granularity-faults") or config.getini("granularity_faults") or "declared"
    if value not in FAULT_SETS:
        raise pytest.UsageError(f"granularity_faults: '{value}' is not one of {', '.join(FAULT_SETS)}")
    return value


def task_faults(task: Task, fault_set: str) -> tuple[str, ...]:
    """The faults a macro-first policy runs ``task`` with: its declared ones, or with ``all`` early
    and late wherever the task has a reference macro call (so every family has faulted runs)."""
    if fault_set == "all" and task.macro is not None:
        return FAULTS
    return task.faults


def _shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise pytest.UsageError(f"--granularity-shard: '{value}' is not I/N with 1 <= I <= N (for example 2/4)")
    return int(index), int(count)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep shard I of N: every N-th task in sorted order, all of its runs together."""
    shard = config.stash.get(shard_key, None)
    if shard is None:
        return
    index, count = shard
    tasks = sorted({item.task.id for item in items if isinstance(item, TaskItem)})
    chosen = {task for position, task in enumerate(tasks) if position % count == index - 1}
    keep = [item for item in items if not isinstance(item, TaskItem) or item.task.id in chosen]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A task folder's setup, solution and hidden verifier are data, never tests of their own, and
    neither are the fixtures the collected tasks are built on.

    In a contract session the items are the contract checks: no file is collected, so macro
    folders given as paths (and the example projects inside them) are not run as tests.
    """
    if collection_path.name != TASK_FILE and (collection_path.parent / TASK_FILE).is_file():
        return True
    fixtures = config.stash.get(fixtures_key, frozenset())
    if fixtures and collection_path.is_dir() and collection_path.resolve() in fixtures:
        return True
    if config.getoption("--granularity-contracts", False) and collection_path.is_file():
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == TASK_FILE and settings_key in parent.config.stash:
        return TaskFile.from_parent(parent, path=file_path)
    return None


class TaskFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            task = load_task(self.path)
        except TaskError as exc:
            raise self.CollectError(str(exc)) from None
        self._check_unique(task)
        problems = macro_call_problems(task, self.config.stash[settings_key].macros)
        if problems:
            raise self.CollectError(f"{task.path}: {problems[0]}")
        baseline = self.config.stash[gate_key].baseline
        epochs = self.config.stash[epochs_key]
        for policy in self.config.stash[policies_key]:
            faults = (
                (NO_FAULT, *task_faults(task, self.config.stash[fault_set_key])) if policy.uses_macros else (NO_FAULT,)
            )
            for fault in faults:
                label = policy.name if fault == NO_FAULT else f"{policy.name}-{fault}"
                for epoch in range(epochs):
                    name = f"{task.id}[{label}]" if epochs == 1 else f"{task.id}[{label}-e{epoch}]"
                    item = TaskItem.from_parent(
                        self, name=name, callobj=_run_item, task=task, policy=policy, fault=fault, epoch=epoch
                    )
                    entry = _single_entry(baseline, epochs, task.id, policy.name, fault)
                    if entry is not None and not entry.success:
                        item.add_marker(
                            pytest.mark.xfail(reason=f"failed in the baseline {baseline.source}", strict=False)
                        )
                    yield item

    def _check_unique(self, task: Task) -> None:
        seen = self.config.stash[task_ids_key]
        other = seen.setdefault(task.id, task.path)
        if other != task.path:
            raise self.CollectError(
                f"{task.path}: field 'id': '{task.id}' is also the id of {other}; task ids must be unique"
            )


def _judged_over_epochs(baseline: Baseline | None, epochs: int, task: str, policy: str, fault: str) -> bool:
    """One run of a repeated cell is one coin flip: the gate judges the cell's success fraction
    at the end of the session (``gate.compare``), not each run."""
    known = baseline.epochs_of(task, policy, fault) if baseline else 0
    return known > 0 and (epochs > 1 or known > 1)


def _single_entry(baseline: Baseline | None, epochs: int, task: str, policy: str, fault: str) -> Entry | None:
    """The baseline entry a run is judged on by itself, as with one epoch on both sides."""
    if baseline is None or _judged_over_epochs(baseline, epochs, task, policy, fault):
        return None
    return baseline.entry_for(task, policy, fault)


class RunFailed(Exception):
    """The verifier did not accept the run (or the run could not be made), or it regressed."""

    def __init__(self, result: RunResult, regression: str | None = None) -> None:
        super().__init__(regression or result.summary())
        self.result = result
        self.regression = regression


class TaskItem(pytest.Function):
    def __init__(self, *, task: Task, policy: Policy, fault: str, epoch: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.policy = policy
        self.fault = fault
        self.epoch = epoch
        self.add_marker(pytest.mark.granularity(policy.name, fault))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, RunFailed):
            return _describe_failure(excinfo.value.result, excinfo.value.regression)
        return super().repr_failure(excinfo)


class _FaultInjector:
    """Raises at one fault point, on the first macro call of the run only."""

    def __init__(self, point: str) -> None:
        self.point = point
        self.fired = False

    def _maybe_raise(self, point: str, macro: str) -> None:
        if point == self.point and not self.fired:
            self.fired = True
            raise InjectedFault(f"injected {point} fault in {macro}")

    def pytest_granularity_macro_early(self, macro: str, args: dict[str, Any], workspace: Path) -> None:
        self._maybe_raise("early", macro)

    def pytest_granularity_macro_late(self, macro: str, args: dict[str, Any], workspace: Path) -> None:
        self._maybe_raise("late", macro)


@pytest.fixture
def granularity_fault(request: pytest.FixtureRequest) -> Iterator[str]:
    """Injects the item's fault (``early`` or ``late``) through the macro fault hooks while it runs."""
    fault = getattr(request.node, "fault", NO_FAULT)
    if fault == NO_FAULT:
        yield fault
        return
    injector = _FaultInjector(fault)
    request.config.pluginmanager.register(injector, f"granularity-fault-{id(injector)}")
    try:
        yield fault
    finally:
        request.config.pluginmanager.unregister(injector)


def _run_item(request: pytest.FixtureRequest, granularity_fault: str) -> None:
    item: TaskItem = request.node
    config = item.config

    def fault_point(point: str, macro: str, args: dict[str, Any], root: Path) -> None:
        getattr(config.hook, f"pytest_granularity_macro_{point}")(macro=macro, args=args, workspace=root)

    result = run_task(item.task, item.policy, item.fault, config.stash[settings_key], fault_point, item.epoch)
    item.user_properties.append((RECORD_KEY, json.dumps(result.to_dict(), sort_keys=True)))
    gate = config.stash[gate_key]
    epochs = config.stash[epochs_key]
    regression = run_regression(_single_entry(gate.baseline, epochs, *result.key), result, gate.thresholds)
    if regression or not result.success:
        if result.outcome != ERROR and _judged_over_epochs(gate.baseline, epochs, *result.key):
            pytest.xfail(
                f"epoch {result.epoch} rejected; the gate judges {result.task} [{result.policy}, fault {result.fault}] over all epochs"
            )
        raise RunFailed(result, regression)


def _describe_failure(result: RunResult, regression: str | None = None) -> str:
    if regression:
        head = regression
    elif result.outcome == ERROR:
        head = f"INFRASTRUCTURE ERROR (not an agent failure): {result.error}"
    else:
        head = "verifier rejected the final workspace"
    changed = ", ".join(result.created + result.modified + result.deleted) or "none"
    lines = [head, f"run: {result.summary()}", f"changed paths: {changed}"]
    if result.transitions:
        lines.append("transitions: " + " | ".join(result.transitions))
    lines.extend(["--- verifier output (tail) ---", result.verifier_output])
    return "\n".join(lines)


class RunCollector:
    """Session state, registered as a plugin so its hooks see it: the controller's run records.

    A run whose test report carries no record (its xdist worker crashed, or the plugin itself
    failed) is kept as an infrastructure error rather than lost from the table.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.results: list[RunResult] = []
        self.gate: GateReport | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when not in ("call", "???"):
            return
        records = records_in(report.user_properties)
        if not records and report.failed and _is_task_item(report.nodeid):
            records = [_lost_run(self.config, report)]
        self.results.extend(records)
        if not hasattr(self.config, "workerinput"):
            for record in records:
                self.config.hook.pytest_granularity_run_finished(config=self.config, result=record)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        settings = self.config.stash[gate_key]
        if hasattr(self.config, "workerinput") or settings.baseline is None:
            return
        self.gate = compare_to_baseline(settings.baseline, self.results, settings.thresholds)
        if self.gate.failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        terminalreporter.section("granularity")
        terminalreporter.write_line(self.config.stash[sandbox_key].describe())
        if not self.results:
            terminalreporter.write_line("no benchmark runs were made")
            return
        terminalreporter.write_line(render_report(self.results, verbose=self.config.option.verbose > 0))
        for line in self._write_outputs():
            terminalreporter.write_line(line)
        self._report_gate(terminalreporter)

    def _report_gate(self, terminalreporter: Any) -> None:
        settings = self.config.stash[gate_key]
        if self.config.getoption("--granularity-update-baseline"):
            self._update_baseline(terminalreporter, settings)
        if self.gate is None:
            if not self.config.getoption("--granularity-update-baseline"):
                terminalreporter.write_line("no baseline given (--granularity-baseline): not gating")
            return
        source = settings.baseline.source if settings.baseline else ""
        terminalreporter.section(f"granularity gate against {source}", red=self.gate.failed, green=not self.gate.failed)
        for line in self.gate.regressions:
            terminalreporter.write_line(f"REGRESSION {line}", red=True)
        for line in self.gate.improvements:
            terminalreporter.write_line(f"improvement {line}", green=True)
        if self.gate.stale:
            terminalreporter.write_line(
                f"{len(self.gate.stale)} stale baseline entries (not run now): {', '.join(self.gate.stale[:5])}{' ...' if len(self.gate.stale) > 5 else ''}"
            )
        verdict = "FAILED: the session exits non-zero" if self.gate.failed else "passed: nothing got worse"
        terminalreporter.write_line(f"gate {verdict}", red=self.gate.failed, bold=True)
        if github_output.in_actions():
            for line in github_output.gate_annotations(self.gate):
                terminalreporter.write_line(line)
        github_output.write_step_summary(github_output.gate_markdown(self.gate, source))

    def _update_baseline(self, terminalreporter: Any, settings: GateSettings) -> None:
        spec = self.config.getoption("--granularity-baseline") or self.config.getini("granularity_baseline")
        path = self.config.rootpath / (spec if spec and not spec.startswith("git:") else DEFAULT_BASELINE)
        fresh = Baseline.from_results(self.results)
        previous = settings.baseline or (load_baseline(str(path), self.config.rootpath) if path.is_file() else None)
        stale = sorted(set(previous.runs) - set(fresh.runs)) if previous else []
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fresh.to_json())
        terminalreporter.write_line(f"baseline written: {path} ({len(fresh.runs)} runs)")
        if stale:
            terminalreporter.write_line(
                f"dropped {len(stale)} stale entries no longer run: {', '.join(stale[:5])}{' ...' if len(stale) > 5 else ''}"
            )

    def _write_outputs(self) -> list[str]:
        lines = []
        report = self.config.getoption("--granularity-report")
        if report:
            summary, records = write_report(Path(report), self.results)
            lines.append(f"report: {summary} (summaries), {records} (run records)")
        plot = self.config.getoption("--granularity-plot")
        if plot:
            lines.append(f"plot: {write_plot(Path(plot), summarize(self.results), epoch_summaries(self.results))}")
        page = self.config.getoption("--granularity-html")
        if page:
            from .html_report import write_html

            lines.append(f"html: {write_html(Path(page), self.results)}")
        github_output.write_step_summary(github_output.results_markdown(self.results))
        return lines


def _is_task_item(nodeid: str) -> bool:
    path, _, name = nodeid.partition("::")
    return path.endswith(TASK_FILE) and name.endswith("]") and "[" in name


def _lost_run(config: pytest.Config, report: pytest.TestReport) -> RunResult:
    path, _, name = report.nodeid.partition("::")
    task_id, _, label = name[:-1].partition("[")
    label, epoch = _split_epoch(label)
    policy, _, fault = label.rpartition("-")
    if fault not in FAULTS:
        policy, fault = label, NO_FAULT
    try:
        family = load_task(config.rootpath / path).family
    except TaskError:
        family = "unknown"
    message = str(report.longrepr).strip().splitlines()[-1] if report.longrepr else "no record"
    return RunResult.infrastructure_error(
        task=task_id,
        family=family,
        policy=policy,
        fault=fault,
        stop_reason="lost",
        error=message,
        epoch=epoch,
        seed=config.stash[settings_key].seed + epoch,
    )


def _split_epoch(label: str) -> tuple[str, int]:
    """``hybrid-late-e2`` → (``hybrid-late``, 2); a label without an epoch suffix is epoch 0."""
    head, _, tail = label.rpartition("-e")
    return (head, int(tail)) if head and tail.isdigit() else (label, 0)
