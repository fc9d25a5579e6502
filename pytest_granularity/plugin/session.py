"""One ``--granularity`` session's state: its settings, the run records collected, the gate's verdict.

The plugin's hooks stay thin and hand off to this object (as pytest-benchmark's hooks hand off
to its ``BenchmarkSession``): :meth:`GranularitySession.record` takes each test report,
:meth:`~GranularitySession.finish` gates the session on its baseline, and
:meth:`~GranularitySession.display` prints the table and writes the outputs. Under pytest-xdist
the controller's session collects every worker's records from the reports; a worker's own
session only judges its runs and never gates or displays.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ..core.output_files import failure, write_text
from ..core.result import RunIdentity, RunResult, StopReason, identity_in, records_in
from ..gate.baseline import Baseline, Entry, GateReport, compare, load_baseline, run_regression
from ..gate.metrics import epoch_summaries, summarize
from ..report.html import write_html
from ..report.plot import write_plot
from ..report.render import render_report, write_report
from . import github_output
from .settings import GranularitySettings

"""The stop reason of a run whose record never arrived."""


class GranularitySession:
    """The results of a session's runs and what is made of them at the end."""

    def __init__(self, settings: GranularitySettings) -> None:
        self.settings = settings
        self.results: list[RunResult] = []
        self.written: list[str] = []
        self.unwritten: list[str] = []
        """Outputs that could not be written, each ``could not write FILE: WHY`` (``finish`` fails the session)."""
        self.gate: GateReport | None = None
        self.task_paths: dict[str, Path] = {}
        """Every collected task's id and file, so two tasks with one id are a collection error."""
        self._identities: dict[str, RunIdentity] = {}

    def baseline_entry(self, task: str, policy: str, fault: str) -> Entry | None:
        """The baseline entry a run is judged on by itself, as with one epoch on both sides."""
        if self.judged_over_epochs(task, policy, fault):
            return None
        baseline = self.settings.gate.baseline
        return baseline.entry_for(task, policy, fault) if baseline else None

    def judged_over_epochs(self, task: str, policy: str, fault: str) -> bool:
        """One run of a repeated cell is one coin flip: the gate judges the cell's success fraction
        at the end of the session (``gate.compare``), not each run."""
        baseline = self.settings.gate.baseline
        known = baseline.epochs_of(task, policy, fault) if baseline else 0
        return known > 0 and (self.settings.epochs > 1 or known > 1)

    def regression(self, result: RunResult) -> str | None:
        """Why this run alone is worse than its baseline entry, or None."""
        return run_regression(self.baseline_entry(*result.key), result, self.settings.gate.thresholds)

    def record(self, report: pytest.TestReport) -> list[RunResult]:
        """Keep the run records a call report carries; the records kept.

        A failed run whose report carries no record (its xdist worker crashed, or the plugin
        itself failed) is kept as an infrastructure error rather than lost from the table; which
        run it was comes from the identity its setup report carried.
        """
        identity = identity_in(report.user_properties)
        if report.when == "setup" and identity is not None:
            self._identities[report.nodeid] = identity
        if report.when not in ("call", "???"):
            return []
        records = records_in(report.user_properties)
        identity = identity or self._identities.get(report.nodeid)
        if not records and report.failed and identity is not None:
            records = [self._lost_run(identity, report)]
        self.results.extend(records)
        return records

    def _lost_run(self, identity: RunIdentity, report: pytest.TestReport) -> RunResult:
        message = str(report.longrepr).strip().splitlines()[-1] if report.longrepr else "no record"
        return RunResult.infrastructure_error(
            task=identity.task,
            family=identity.family,
            policy=identity.policy,
            fault=identity.fault,
            stop_reason=StopReason.LOST,
            error=message,
            epoch=identity.epoch,
            seed=self.settings.run.seed + identity.epoch,
        )

    def finish(self, exitstatus: int) -> int:
        """Write the output files and gate the runs on the baseline; the session's exit status, failed if a file
        could not be written (a full disk) or the gate failed."""
        if self.settings.worker:
            return exitstatus
        if self.results:
            self.written = self._write_outputs()
            if self.unwritten and exitstatus == pytest.ExitCode.OK:
                exitstatus = pytest.ExitCode.TESTS_FAILED
        baseline = self.settings.gate.baseline
        if baseline is None:
            return exitstatus
        self.gate = compare(baseline, self.results, self.settings.gate.thresholds)
        if self.gate.failed and exitstatus == pytest.ExitCode.OK:
            return pytest.ExitCode.TESTS_FAILED
        return exitstatus

    def display(self, terminal: pytest.TerminalReporter) -> None:
        """The table, the files written, and the gate's verdict, in the terminal summary."""
        if self.settings.worker:
            return
        terminal.section("granularity")
        terminal.write_line(self.settings.run.sandbox.describe())
        if not self.results:
            terminal.write_line("no benchmark runs were made")
            return
        terminal.write_line(render_report(self.results, verbose=self.settings.verbose))
        for line in self.written:
            terminal.write_line(line)
        for line in self.unwritten:
            terminal.write_line(f"ERROR: {line}", red=True)
        self._display_gate(terminal)

    def _write_outputs(self) -> list[str]:
        """Each output written, a line each; one that fails (a full disk) is named in ``unwritten``, and the
        others are still written."""
        outputs, results = self.settings.outputs, self.results
        writers: list[Callable[[], str | None]] = []
        if outputs.report is not None:
            report = outputs.report
            writers.append(lambda: "report: {} (summaries), {} (run records)".format(*write_report(report, results)))
        if outputs.plot is not None:
            plot = outputs.plot
            writers.append(lambda: f"plot: {write_plot(plot, summarize(results), epoch_summaries(results))}")
        if outputs.html is not None:
            html = outputs.html
            writers.append(lambda: f"html: {write_html(html, results)}")
        if github_output.has_step_summary():
            writers.append(lambda: github_output.write_step_summary(github_output.results_markdown(results)))
        lines = []
        for write in writers:
            try:
                line = write()
            except OSError as exc:
                self.unwritten.append(failure(exc))
                continue
            if line:
                lines.append(line)
        return lines

    def _display_gate(self, terminal: pytest.TerminalReporter) -> None:
        settings = self.settings.gate
        if settings.update:
            self._update_baseline(terminal)
        if self.gate is None:
            if not settings.update:
                terminal.write_line("no baseline given (--granularity-baseline): not gating")
            return
        source = settings.baseline.source if settings.baseline else ""
        terminal.section(f"granularity gate against {source}", red=self.gate.failed, green=not self.gate.failed)
        for line in self.gate.regressions:
            terminal.write_line(f"REGRESSION {line}", red=True)
        for line in self.gate.improvements:
            terminal.write_line(f"improvement {line}", green=True)
        if self.gate.stale:
            terminal.write_line(
                f"{len(self.gate.stale)} stale baseline entries (not run now): {_some(self.gate.stale)}"
            )
        if self.gate.environment:
            terminal.write_line(self.gate.environment)
        verdict = "FAILED: the session exits non-zero" if self.gate.failed else "passed: nothing got worse"
        terminal.write_line(f"gate {verdict}", red=self.gate.failed, bold=True)
        if github_output.in_actions():
            for line in github_output.gate_annotations(self.gate):
                terminal.write_line(line)
        github_output.write_step_summary(github_output.gate_markdown(self.gate, source))

    def _update_baseline(self, terminal: pytest.TerminalReporter) -> None:
        settings = self.settings.gate
        path = settings.path
        fresh = Baseline.from_results(self.results)
        previous = settings.baseline or (load_baseline(str(path), self.settings.root) if path.is_file() else None)
        stale = sorted(set(previous.runs) - set(fresh.runs)) if previous else []
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_text(path, fresh.to_json())
        except OSError as exc:
            terminal.write_line(f"ERROR: {failure(exc)}", red=True)
            return
        terminal.write_line(f"baseline written: {path} ({len(fresh.runs)} runs)")
        if stale:
            terminal.write_line(f"dropped {len(stale)} stale entries no longer run: {_some(stale)}")


def _some(names: list[str]) -> str:
    """The first five names, and an ellipsis when there are more."""
    return f"{', '.join(names[:5])}{' ...' if len(names) > 5 else ''}"
