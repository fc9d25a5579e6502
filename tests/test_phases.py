"""Where a run's time goes: every run record splits its wall time by phase, and counts pytest's own test time."""

from __future__ import annotations

import json

from test_report import run

from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.core.phases import PHASES, TESTS, PhaseClock
from pytest_granularity.core.result import RunResult
from pytest_granularity.gate.metrics import ALL_POLICIES, phase_totals, slowest_runs
from pytest_granularity.process.pytest_process import run_pytest, test_time
from pytest_granularity.report.render import render_report, without_timings, write_report
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import RunSettings, run_task


def test_the_phases_add_up_to_the_wall_time():
    clock = PhaseClock()
    with clock.timing("agent"):
        sum(range(10_000))
    with clock.timing("agent"):
        pass
    spent = clock.record(tests=0.5)
    assert list(spent) == [*PHASES, TESTS] and spent[TESTS] == 0.5
    assert spent["agent"] > 0 and spent["other"] >= 0 and all(v >= 0 for v in spent.values())


def test_a_run_records_every_phase_it_went_through(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["hybrid"], "none", RunSettings(agent=ReferenceAgent))
    assert result.success and set(result.phases) == {*PHASES, TESTS}
    for phase in ("setup", "macros", "changes", "verifier"):  # cleanup: a kept folder is left for the next
        assert result.phases[phase] > 0, phase  # run's sync, often under the record's 0.1 ms
    assert RunResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert result == RunResult.from_dict({**result.to_dict(), "phases": {}}), "timings never make two records differ"


def test_pytest_test_time_counts_runs_that_ran_and_not_memo_hits(tmp_path):
    (tmp_path / "test_one.py").write_text("import time\n\ndef test_one():\n    time.sleep(0.05)\n")
    before = test_time.total
    assert run_pytest(tmp_path, [], 60).passed
    ran = test_time.total - before
    assert ran >= 0.05
    assert run_pytest(tmp_path, [], 60).passed and test_time.total - before == ran, "a memo hit runs no test"
    assert run_pytest(tmp_path, ["test_one.py"], 60, isolated=True).passed and test_time.total - before >= 2 * 0.05


def timed(task, policy, agent=0.0, tests=0.0, **fields):
    phases = {**dict.fromkeys(PHASES, 0.0), "agent": agent, TESTS: tests}
    return RunResult.from_dict({**run(task, policy, **fields).to_dict(), "phases": phases})


def test_totals_per_policy_and_over_all_and_the_slowest_runs():
    results = [
        timed("a", "micro", 2.0, 1.0),
        timed("b", "micro", 1.0, 0.5),
        timed("a", "macro", 4.0, 1.0),
        run("c", "macro"),
    ]
    totals = {t.policy: t for t in phase_totals(results)}
    assert (totals["micro"].runs, totals["micro"].seconds, totals["micro"].tests) == (2, 3.0, 1.5)
    assert totals["macro"].runs == 1, "a run without timings counts in no total"
    assert (totals[ALL_POLICIES].seconds, totals[ALL_POLICIES].phases["agent"]) == (7.0, 7.0)
    assert [(r.task, r.policy) for r in slowest_runs(results, 2)] == [("a", "macro"), ("a", "micro")]
    text = render_report(results, verbose=True)
    assert "where the time went" in text and "slowest runs:" in text
    assert "where the time went" not in render_report([run("c", "macro")]), "old records have no timings to show"


def test_reports_differ_only_in_timings(tmp_path):
    first, second = [timed("a", "micro", 2.0, 1.0)], [timed("a", "micro", 3.0, 1.5)]
    texts = []
    for name, results in (("one", first), ("two", second)):
        summary, records = write_report(tmp_path / f"{name}.json", results)
        texts.append((summary.read_text(), records.read_text()))
    assert texts[0] != texts[1] and '"phases"' in texts[0][0]
    assert [without_timings(t) for t in texts[0]] == [without_timings(t) for t in texts[1]]


def test_the_html_page_shows_the_phase_totals():
    from pytest_granularity.report.html import render_html

    page = render_html([timed("a", "micro", 2.0, 1.0), timed("b", "macro", 1.0, 0.5)])
    assert "Where the time went" in page and "<td>micro</td><td>1</td><td>2.0</td>" in page
    assert "Where the time went" not in render_html([run("c", "macro")])
