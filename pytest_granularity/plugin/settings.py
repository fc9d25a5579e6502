"""A ``--granularity`` session's settings, read once from the options and ini keys when pytest is configured.

Every value is checked here, so a bad one is a usage error before anything runs, and the rest of
the plugin reads a frozen object instead of asking ``config`` again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from ..core.tasks import TaskError, find_task_files, load_task
from ..gate.baseline import (
    DEFAULT_BASELINE,
    GIT_PREFIX,
    Baseline,
    BaselineError,
    Thresholds,
    load_baseline,
    parse_fraction,
)
from ..macros.suggestions import CONSTRAINED, OFF
from ..macros.suggestions import MODES as SUGGESTION_MODES
from ..process.sandbox import Sandbox
from ..run.policies import Policy
from ..run.runner import RunSettings
from .extensions import resolve as resolve_extensions
from .options import FAULT_SETS, named, setting, whole_number
from .output_paths import output_problem


@dataclass(frozen=True)
class GateSettings:
    """The baseline to gate on (None: not gating), the thresholds, and where an update is written."""

    baseline: Baseline | None
    thresholds: Thresholds
    update: bool
    """``--granularity-update-baseline``: write this session's runs as the baseline at the end."""
    path: Path


@dataclass(frozen=True)
class Outputs:
    """The files written at the end of the session (None: not asked for)."""

    report: Path | None
    plot: Path | None
    html: Path | None


@dataclass(frozen=True)
class GranularitySettings:
    run: RunSettings
    policies: tuple[Policy, ...]
    fault_set: str
    """Which faulted runs a macro-first policy adds: one of ``options.FAULT_SETS``."""
    shard: tuple[int, int] | None
    """Run only shard I of N: (I, N)."""
    epochs: int
    fixtures: frozenset[Path]
    """The fixtures of the tasks being collected: projects to copy, never test modules to collect."""
    gate: GateSettings
    outputs: Outputs
    root: Path
    verbose: bool
    worker: bool
    """This process is a pytest-xdist worker: it runs items; the controller reports and gates."""

    @classmethod
    def from_config(cls, config: pytest.Config, sandbox: Sandbox) -> GranularitySettings:
        # Imported here: pytest imports model_plugin itself, as a plugin (``pytest_plugins``), and
        # would warn that a module imported before then cannot have its asserts rewritten.
        from .model_plugin import run_settings

        outputs = _outputs(config)
        extensions = resolve_extensions(config)
        fault_set = _fault_set(config)
        shard = _shard(config.getoption("--granularity-shard"))
        epochs = whole_number(config, "epochs")
        if epochs < 1:
            raise pytest.UsageError("--granularity-epochs: must be at least 1")
        run = RunSettings(
            agent=extensions.agent,
            macros=extensions.macros,
            max_steps=_max_steps(config),
            retrieval_k=whole_number(config, "retrieval-k"),
            seed=whole_number(config, "seed"),
            suggestions=_suggestions(config),
            **run_settings(config),
            sandbox=sandbox,
        )
        return cls(
            run=run,
            policies=extensions.policies,
            fault_set=fault_set,
            shard=shard,
            epochs=epochs,
            fixtures=_fixture_folders(config),
            gate=_gate_settings(config),
            outputs=outputs,
            root=config.rootpath,
            verbose=config.option.verbose > 0,
            worker=hasattr(config, "workerinput"),
        )


DEFAULT_SUGGESTIONS = CONSTRAINED
"""What every agent but the reference one gets unless told: chosen from the bundled model's ablation
(docs/models.md)."""


def _suggestions(config: pytest.Config) -> str:
    """The reference agent knows every answer, so suggestions would only change its bill: off unless asked."""
    mode = setting(config, named("suggestions"))
    if not mode:
        return OFF if setting(config, named("agent")) == "reference" else DEFAULT_SUGGESTIONS
    if mode not in SUGGESTION_MODES:
        raise pytest.UsageError(f"--granularity-suggestions: '{mode}' is not one of {', '.join(SUGGESTION_MODES)}")
    return str(mode)


def _outputs(config: pytest.Config) -> Outputs:
    """Files written at the end must be writable now, not after the whole benchmark ran."""
    paths = {}
    for option, companions in (
        ("--granularity-report", (".jsonl",)),
        ("--granularity-plot", (".txt",)),
        ("--granularity-html", ()),
    ):
        value = config.getoption(option)
        path = Path(value) if value else None
        problem = output_problem(path, [path.with_suffix(s) for s in companions]) if path else None
        if problem:
            raise pytest.UsageError(f"{option}: {problem}")
        paths[option] = path
    return Outputs(paths["--granularity-report"], paths["--granularity-plot"], paths["--granularity-html"])


def _max_steps(config: pytest.Config) -> int | None:
    value: int | None = setting(config, named("max-steps"))
    if value is not None and value < 1:
        raise pytest.UsageError(
            f"--granularity-max-steps: {value} must be at least 1 (leave it out to use each task's own limit)"
        )
    return value


def _fixture_folders(config: pytest.Config) -> frozenset[Path]:
    base = config.invocation_params.dir
    paths = [base / arg.split("::")[0] for arg in config.args] or [base]
    folders = set()
    for path in find_task_files(paths):
        try:
            folders.add(load_task(path).fixture.resolve())
        except TaskError:
            continue
    return frozenset(folders)


def _fault_set(config: pytest.Config) -> str:
    value: str = setting(config, named("faults"))
    if value not in FAULT_SETS:
        raise pytest.UsageError(f"granularity_faults: '{value}' is not one of {', '.join(FAULT_SETS)}")
    return value


def _shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise pytest.UsageError(f"--granularity-shard: '{value}' is not I/N with 1 <= I <= N (for example 2/4)")
    return int(index), int(count)


def _gate_settings(config: pytest.Config) -> GateSettings:
    values = {}
    for field_name in ("test_token_tolerance", "max_token_increase", "max_success_drop", "alpha"):
        option = named(field_name.replace("_", "-"))
        raw = setting(config, option)
        if raw is not None:
            try:
                values[field_name] = parse_fraction(raw, option.flag_name)
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
    if values.get("max_success_drop", 0) > 1:
        raise pytest.UsageError(
            f"--granularity-max-success-drop: {values['max_success_drop']:g} is more than 1"
            " (a success rate cannot drop by more than 100%)"
        )
    if not 0 < values.get("alpha", 0.05) < 1:
        raise pytest.UsageError(f"--granularity-alpha: {values['alpha']:g} is not between 0 and 1")
    update = bool(config.getoption("--granularity-update-baseline"))
    spec = setting(config, named("baseline"))
    path = config.rootpath / (spec if spec and not spec.startswith(GIT_PREFIX) else DEFAULT_BASELINE)
    if spec and update and not spec.startswith(GIT_PREFIX) and not (config.rootpath / spec).exists():
        spec = None  # a first baseline: written at the end, nothing to compare with now
    try:
        baseline = load_baseline(spec, config.rootpath) if spec else None
    except BaselineError as exc:
        raise pytest.UsageError(f"--granularity-baseline: {exc}") from None
    return GateSettings(baseline, Thresholds(**values), update, path)
