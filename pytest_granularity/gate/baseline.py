"""The CI gate: a committed baseline, and direction-aware comparisons with it.

Only getting worse fails: a run that passed in the baseline and now fails, a run whose tokens
rose past the per-test tolerance, a policy whose success rate dropped or whose mean tokens rose
past the session thresholds. Getting better is reported, never failed. A run that failed in the
baseline is an expected failure, so known macro misfits do not break the build. Aggregates are
compared on the runs both sides have, so running a subset does not look like a regression.
When either side ran a cell (task, policy, fault) more than once (``--granularity-epochs``),
its policy and fault are judged by significance instead (``epoch_gate``). A baseline records the
environment it was made in (Python, pytest, platform); when runs differ from it and this run's
environment is another (or the baseline records none), the report says so in one line.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from statistics import fmean

from ..core import __version__
from ..core.defaults import ALPHA, MAX_SUCCESS_DROP, MAX_TOKEN_INCREASE, TEST_TOKEN_TOLERANCE
from ..core.environment import Environment, current_environment, environment_note
from ..core.errors import GranularityError, InputError
from ..core.input_files import read_bounded
from ..core.result import RunResult
from ..core.schemas import DefinitionError, first_error, packaged_schema, parse_json
from .epoch_gate import Cell, judge

SCHEMA_VERSION = 1
DEFAULT_BASELINE = Path(".granularity/baseline.json")
GIT_PREFIX = "git:"


class BaselineError(GranularityError, ValueError):
    """A baseline that was asked for but cannot be used."""


@dataclass(frozen=True)
class Entry:
    success: bool
    steps: int
    tokens: int


def _key(task: str, policy: str, fault: str) -> str:
    return f"{task}|{policy}|{fault}"


def _run_key(result: RunResult) -> str:
    """A run's entry: its cell's key, with ``|e<k>`` for epochs after the first."""
    return _key(*result.key) + (f"|e{result.epoch}" if result.epoch else "")


def _cell_of(key: str) -> tuple[str, str, str]:
    task, policy, fault = key.split("|")[:3]
    return task, policy, fault


@dataclass(frozen=True)
class Baseline:
    runs: dict[str, Entry]
    source: str = ""
    environment: dict[str, str] | None = None
    """Where the runs were made (``core.environment``); None for a baseline written before it was recorded."""

    @classmethod
    def from_results(cls, results: Iterable[RunResult]) -> Baseline:
        """The runs of this process, made in its environment."""
        return cls({_run_key(r): Entry(r.success, r.steps, r.tokens) for r in results}, "", current_environment())

    def entry(self, result: RunResult) -> Entry | None:
        return self.runs.get(_run_key(result))

    def entry_for(self, task: str, policy: str, fault: str) -> Entry | None:
        return self.runs.get(_key(task, policy, fault))

    @cached_property
    def cells(self) -> dict[tuple[str, str, str], list[Entry]]:
        """Every (task, policy, fault) with its runs, one per epoch, in key order."""
        cells: dict[tuple[str, str, str], list[Entry]] = {}
        for key, entry in sorted(self.runs.items()):
            cells.setdefault(_cell_of(key), []).append(entry)
        return cells

    def epochs_of(self, task: str, policy: str, fault: str) -> int:
        return len(self.cells.get((task, policy, fault), ()))

    def to_json(self) -> str:
        groups: dict[str, list[Entry]] = {}
        for key, entry in self.runs.items():
            _, policy, fault = _cell_of(key)
            groups.setdefault(f"{policy}|{fault}", []).append(entry)
        document: dict[str, object] = {
            "schema_version": SCHEMA_VERSION,
            "generator": f"pytest-granularity {__version__}",
            "runs": {
                k: {"success": e.success, "steps": e.steps, "tokens": e.tokens} for k, e in sorted(self.runs.items())
            },
            "aggregates": {
                k: {
                    "runs": len(v),
                    "success_rate": fmean(e.success for e in v),
                    "mean_tokens": fmean(e.tokens for e in v),
                }
                for k, v in sorted(groups.items())
            },
        }
        if self.environment is not None:
            document["environment"] = self.environment
        return json.dumps(document, indent=1, sort_keys=True) + "\n"

    @classmethod
    def parse(cls, text: str | bytes, source: str) -> Baseline:
        """A baseline from its JSON text, validated against ``schemas/baseline.schema.json``."""
        try:
            data = parse_json(text, Path(source))
        except DefinitionError as exc:
            raise BaselineError(f"{source}: not a pytest-granularity baseline: {exc.message}") from None
        if isinstance(data, dict) and data.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
            raise BaselineError(f"{source}: field 'schema_version': {data['schema_version']!r} is not {SCHEMA_VERSION}")
        error = first_error(packaged_schema("baseline.schema.json"), data)
        if error:
            raise BaselineError(f"{source}: field '{error[0]}': {error[1]}")
        runs = {k: Entry(v["success"], v["steps"], v["tokens"]) for k, v in data["runs"].items()}
        return cls(runs, source, data.get("environment"))


def load_baseline(spec: str, root: Path) -> Baseline:
    """A baseline from a path, or from ``git:REF:PATH`` (read through GitPython, no checkout)."""
    if spec.startswith(GIT_PREFIX):
        ref, _, in_repo = spec[len(GIT_PREFIX) :].partition(":")
        if not ref or not in_repo:
            raise BaselineError(
                f"{spec}: a git baseline is written git:REF:PATH, "
                "for example git:origin/main:.granularity/baseline.json"
            )
        return Baseline.parse(_read_from_git(root, ref, in_repo, spec), spec)
    path = Path(spec) if Path(spec).is_absolute() else root / spec
    try:
        data = read_bounded(path)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror}") from None
    return Baseline.parse(data, spec)


def _read_from_git(root: Path, ref: str, path: str, spec: str) -> str:
    import git

    try:
        repo = git.Repo(root, search_parent_directories=True)
        blob = repo.commit(ref).tree / path
        data: bytes = blob.data_stream.read()
        return data.decode("utf-8")
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise BaselineError(f"{spec}: {root} is not in a git repository ({exc})") from None
    except (git.BadName, ValueError) as exc:
        raise BaselineError(f"{spec}: no commit '{ref}' ({exc})") from None
    except KeyError:
        raise BaselineError(f"{spec}: no file '{path}' at {ref}") from None


def parse_fraction(value: str, name: str) -> float:
    """``5%`` → 0.05; ``0.05`` → 0.05; ``0`` → 0.0."""
    text = str(value).strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise InputError(f"{name}: '{value}' is not a number or a percentage (for example 5%)") from None
    if number < 0:
        raise InputError(f"{name}: '{value}' must not be negative")
    return number


@dataclass(frozen=True)
class Thresholds:
    test_token_tolerance: float = TEST_TOKEN_TOLERANCE
    max_token_increase: float = MAX_TOKEN_INCREASE
    max_success_drop: float = MAX_SUCCESS_DROP
    alpha: float = ALPHA


def run_regression(entry: Entry | None, result: RunResult, thresholds: Thresholds) -> str | None:
    """Why this run is worse than its baseline entry, or None."""
    if entry is None or not entry.success:
        return None
    numbers = (
        f"baseline: passed, {entry.steps} steps, {entry.tokens} tokens; "
        f"now: {result.outcome}, {result.steps} steps, {result.tokens} tokens"
    )
    run = f"{result.task} [{result.policy}, fault {result.fault}]"
    if not result.success:
        return f"regressed: {run} passed in the baseline and now fails ({numbers})"
    if result.tokens > entry.tokens * (1 + thresholds.test_token_tolerance):
        return (
            f"regressed: {run} tokens rose {_rise_text(entry.tokens, result.tokens)}, "
            f"past the per-test tolerance of {thresholds.test_token_tolerance:.1%} ({numbers})"
        )
    return None


@dataclass
class GateReport:
    regressions: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    environment: str | None = None
    """When runs differ from the baseline and the environments differ: one line saying so."""

    @property
    def failed(self) -> bool:
        return bool(self.regressions)


def compare(
    baseline: Baseline, results: Iterable[RunResult], thresholds: Thresholds, environment: Environment | None = None
) -> GateReport:
    """Per run and per policy × fault, on the runs both sides have; repeated cells by significance.
    ``environment`` is this run's (by default this process's), compared with the baseline's."""
    report = GateReport()
    results = sorted(results, key=lambda r: r.run_key)
    repeated = _repeated_groups(baseline, results)
    pairs: dict[tuple[str, str], list[tuple[Entry, RunResult]]] = {}
    for result in results:
        entry = baseline.entry(result)
        if entry is None or (result.policy, result.fault) in repeated:
            continue
        pairs.setdefault((result.policy, result.fault), []).append((entry, result))
        message = run_regression(entry, result, thresholds)
        if message:
            report.regressions.append(message)
        elif not entry.success and result.success:
            report.improvements.append(
                f"{result.task} [{result.policy}, fault {result.fault}] failed in the baseline and now passes"
            )
    for (policy, fault), matched in sorted(pairs.items()):
        _aggregate(report, policy, fault, matched, thresholds)
    regressions, improvements = judge(
        _epoch_cells(baseline, [r for r in results if (r.policy, r.fault) in repeated]), thresholds
    )
    report.regressions += regressions
    report.improvements += improvements
    ran = {r.key for r in results}
    report.stale = sorted(k for k in baseline.runs if _cell_of(k) not in ran)
    differences = _differences(baseline, results)
    if differences:
        now = current_environment() if environment is None else environment
        report.environment = environment_note("baseline", baseline.environment, now, differences)
    return report


def _differences(baseline: Baseline, results: list[RunResult]) -> str:
    """What differs between the runs and their baseline entries, in words ("steps and tokens"), or ""."""
    differing: set[str] = set()
    for result in results:
        entry = baseline.entry(result)
        if entry is not None:
            pairs: list[tuple[str, object, object]] = [
                ("outcomes", entry.success, result.success),
                ("steps", entry.steps, result.steps),
                ("tokens", entry.tokens, result.tokens),
            ]
            differing |= {name for name, then, now in pairs if then != now}
    return " and ".join(name for name in ("outcomes", "steps", "tokens") if name in differing)


def _repeated_groups(baseline: Baseline, results: list[RunResult]) -> set[tuple[str, str]]:
    """Policy × fault groups where either side ran some cell more than once."""
    runs = Counter(r.key for r in results)
    return {
        (policy, fault)
        for (task, policy, fault), n in runs.items()
        if n > 1 or baseline.epochs_of(task, policy, fault) > 1
    }


def _epoch_cells(baseline: Baseline, results: list[RunResult]) -> dict[tuple[str, str], list[Cell]]:
    """Per policy × fault, the cells both sides ran, each with its baseline and current runs."""
    now: dict[tuple[str, str, str], list[RunResult]] = {}
    for r in results:
        now.setdefault(r.key, []).append(r)
    groups: dict[tuple[str, str], list[Cell]] = {}
    for (task, policy, fault), runs in sorted(now.items()):
        before = baseline.cells.get((task, policy, fault))
        if before:
            cell = Cell(
                task,
                tuple(e.success for e in before),
                tuple(e.tokens for e in before),
                tuple(r.success for r in runs),
                tuple(r.tokens for r in runs),
            )
            groups.setdefault((policy, fault), []).append(cell)
    return groups


def _aggregate(
    report: GateReport, policy: str, fault: str, matched: list[tuple[Entry, RunResult]], thresholds: Thresholds
) -> None:
    before_success = fmean(e.success for e, _ in matched)
    after_success = fmean(r.success for _, r in matched)
    before_tokens = fmean(e.tokens for e, _ in matched)
    after_tokens = fmean(r.tokens for _, r in matched)
    where = f"{policy} [fault {fault}] over {len(matched)} runs"
    drop = before_success - after_success
    if drop > thresholds.max_success_drop + 1e-12:
        report.regressions.append(
            f"{where}: success rate dropped {before_success:.3f} -> {after_success:.3f} ({-drop:+.3f}), "
            f"past --granularity-max-success-drop={thresholds.max_success_drop:g}"
        )
    elif drop < 0:
        report.improvements.append(f"{where}: success rate rose {before_success:.3f} -> {after_success:.3f}")
    rise = _rise(before_tokens, after_tokens)
    if rise > thresholds.max_token_increase + 1e-12:
        report.regressions.append(
            f"{where}: mean tokens rose {before_tokens:.1f} -> {after_tokens:.1f} "
            f"({_rise_text(before_tokens, after_tokens)}), "
            f"past --granularity-max-token-increase={thresholds.max_token_increase:.1%}"
        )
    elif rise < 0:
        report.improvements.append(f"{where}: mean tokens fell {before_tokens:.1f} -> {after_tokens:.1f} ({rise:+.1%})")


def _rise(before: float, after: float) -> float:
    """The relative change; from 0, anything more is an unbounded rise (not "no change")."""
    if before:
        return after / before - 1
    return math.inf if after > 0 else 0.0


def _rise_text(before: float, after: float) -> str:
    return f"{_rise(before, after):+.1%}" if before else "from 0"
