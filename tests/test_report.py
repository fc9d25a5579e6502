from __future__ import annotations

import json
import warnings

import pytest

from pytest_granularity.cli import main
from pytest_granularity.core.result import RunResult
from pytest_granularity.core.schemas import DefinitionError
from pytest_granularity.gate.metrics import g_score, summarize
from pytest_granularity.report.render import (
    MARK_END,
    MARK_START,
    SCHEMA_VERSION,
    read_records,
    render_markdown,
    update_markdown,
    write_report,
)


def run(task, policy, fault="none", outcome="passed", steps=2, tokens=100, macro_calls=0, failure=None, degraded=False):
    return RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome=outcome,
        mode="micro",
        steps=steps,
        tokens=tokens,
        prompt_tokens=tokens - 10,
        completion_tokens=10,
        macro_calls=macro_calls,
        failure_class=failure,
        degraded=degraded,
    )


RUNS = [
    run("a", "micro", steps=6, tokens=600),
    run("b", "micro", steps=4, tokens=400),
    run("a", "macro", steps=1, tokens=100, macro_calls=1),
    run("b", "macro", outcome="failed", steps=1, tokens=50, macro_calls=1, failure="precondition_mismatch"),
    run("a", "hybrid", fault="late", steps=3, tokens=300, macro_calls=1, failure="executor_exception", degraded=True),
    run("b", "hybrid", fault="late", steps=1, tokens=80, macro_calls=1, failure="executor_exception"),
]


def test_the_papers_g_score_rows():
    assert g_score(1.0, 6.00, 7217.75, 7217.75) == pytest.approx(0.1667, abs=5e-5)
    # The paper prints 0.583 for 7 successes of 12; its G-score uses the unrounded rate.
    assert g_score(7 / 12, 2.71, 3609.00, 7217.75) == pytest.approx(0.4305, abs=5e-5)


def test_summaries_by_hand():
    micro, macro, hybrid = summarize(reversed(RUNS))
    assert (micro.policy, micro.runs, micro.success_rate, micro.mean_steps, micro.mean_tokens) == (
        "micro",
        2,
        1.0,
        5.0,
        500.0,
    )
    assert micro.g_score == pytest.approx(1.0 / 5.0 / 1.0)
    assert (
        macro.success_rate == 0.5
        and macro.macro_adoption == 1.0
        and macro.failure_classes == {"precondition_mismatch": 1}
    )
    assert macro.g_score == pytest.approx(0.5 / 1.0 / (75 / 500))
    assert hybrid.fault == "late" and hybrid.transition_rate == 0.5
    assert hybrid.macro_adoption == pytest.approx(2 / 4)


def test_report_round_trip_and_schema(tmp_path):
    summary_path, records_path = write_report(tmp_path / "out.json", RUNS)
    data = json.loads(summary_path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION and data["runs"] == 6
    assert [(s["policy"], s["family"]) for s in data["summaries"]][:3] == [
        ("micro", "all"),
        ("macro", "all"),
        ("hybrid", "all"),
    ]
    assert {s["family"] for s in data["summaries"]} == {"all", "simple"}
    assert [(p["a"], p["b"]) for p in data["paired_differences"]] == [("micro", "macro")]
    assert {"success_rate", "mean_tokens", "g_score", "transition_rate", "failure_classes"} <= set(data["summaries"][0])
    assert len(records_path.read_text().splitlines()) == 6
    assert sorted(read_records(summary_path), key=lambda r: r.key) == sorted(RUNS, key=lambda r: r.key)


def test_an_unknown_schema_version_is_refused(tmp_path):
    path, _ = write_report(tmp_path / "out.json", RUNS)
    path.write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(DefinitionError, match="field 'schema_version': 99 is not 2"):
        read_records(path)


def test_update_markdown_replaces_only_the_block(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"intro\n{MARK_START}\nold table\n{MARK_END}\noutro\n")
    update_markdown(doc, summarize(RUNS))
    text = doc.read_text()
    assert text.startswith("intro\n") and text.endswith("outro\n") and "old table" not in text
    assert render_markdown(summarize(RUNS)) in text


def test_cli_report(tmp_path, capsys):
    path, _ = write_report(tmp_path / "out.json", RUNS)
    assert main(["report", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[2].split()[:4] == ["micro", "none", "2", "1.000"]
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_bootstrap_is_reproducible_and_order_free():
    from pytest_granularity.gate.metrics import bootstrap_ci

    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    first = bootstrap_ci(values, "seed")
    assert first == bootstrap_ci(values, "seed")
    assert first[0] <= sum(values) / len(values) <= first[1]
    assert summarize(RUNS)[0].success_ci == summarize(list(reversed(RUNS)))[0].success_ci


def test_oracle_gap_by_hand():
    micro, macro, hybrid = summarize(RUNS)
    # oracle: task a -> macro 100 (cheapest success), task b -> micro 400 (macro failed); late: a -> 300? micro 600 counts too
    assert micro.oracle_gap == pytest.approx((600 + 400) / 2 / ((100 + 400) / 2))
    assert macro.oracle_gap == pytest.approx((100 + 50) / 2 / ((100 + 400) / 2))
    # hybrid late: a succeeded with 300 (cheaper than micro's 600), b succeeded with 80.
    assert hybrid.oracle_gap == pytest.approx(1.0)


def test_no_oracle_gap_where_the_oracle_used_no_tokens():
    (micro,) = summarize([run("a", "micro", tokens=0), run("b", "micro", tokens=0)])
    assert micro.oracle_gap is None


def test_paired_differences_by_hand():
    from pytest_granularity.gate.metrics import paired_differences

    (pair,) = paired_differences(RUNS)
    assert (pair.fault, pair.a, pair.b, pair.tasks) == ("none", "micro", "macro", 2)
    assert pair.success_diff == pytest.approx(0.5) and pair.tokens_diff == pytest.approx((500 + 350) / 2)
    assert pair.success_ci[0] <= 0.5 <= pair.success_ci[1]


def test_plot_falls_back_to_text_without_matplotlib(tmp_path, monkeypatch):
    import builtins

    from pytest_granularity.report.plot import write_plot

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    written = write_plot(tmp_path / "out.png", summarize(RUNS))
    assert written == tmp_path / "out.txt"
    text = written.read_text()
    assert "A  micro: success 1.000" in text and "C  hybrid-late" in text


def test_plot_png_with_matplotlib(tmp_path):
    pytest.importorskip("matplotlib")
    from pytest_granularity.report.plot import write_plot

    written = write_plot(tmp_path / "out.png", summarize(RUNS))
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("tokens", "scale", "limits"), [((100, 100), "log", (50.0, 200.0)), ((0, 0), "linear", (-1.0, 1.0))]
)
def test_a_token_axis_with_no_width_of_its_own_gets_one(tokens, scale, limits):
    """One policy's runs (``--granularity=hybrid``) all sit at one token count; runs with no tokens at 0."""
    pytest.importorskip("matplotlib")
    from pytest_granularity.report.plot import figure

    runs = [run(f"t{i}", "hybrid", tokens=t) for i, t in enumerate(tokens)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawing = figure(summarize(runs))
        drawing.canvas.draw()
    (axes,) = drawing.axes
    assert (axes.get_xscale(), axes.get_xlim()) == (scale, limits)


def test_cli_merge_refuses_overlapping_shards(tmp_path, capsys):
    one, _ = write_report(tmp_path / "one.json", RUNS[:3])
    two, _ = write_report(tmp_path / "two.json", RUNS[2:])
    assert main(["merge", str(one), str(two), "-o", str(tmp_path / "all.json")]) == 2
    assert "more than one report" in capsys.readouterr().err


def test_priced_provider_runs_get_a_cost_column_and_a_note_on_their_tokens():
    import dataclasses

    from pytest_granularity.report.render import render_report

    priced = [dataclasses.replace(r, token_source="provider", cost=0.01 * (i + 1)) for i, r in enumerate(RUNS[:2])]
    text = render_report(priced)
    header, _, micro = text.splitlines()[:3]
    assert header.split()[-1] == "cost" and micro.split()[-1] == "0.0150"
    assert "tokens: the provider's reported usage for 2 of 2 runs" in text
    plain = render_report(RUNS)
    assert "cost" not in plain.splitlines()[0] and "provider" not in plain


def test_a_records_tool_calls_are_its_steps_and_cannot_be_given_apart():
    record = run("a", "micro", steps=6)
    assert record.tool_calls == 6 and record.to_dict()["tool_calls"] == 6
    assert RunResult.from_dict({**record.to_dict(), "tool_calls": 99}) == record
    with pytest.raises(TypeError):
        RunResult(**record.to_dict())
