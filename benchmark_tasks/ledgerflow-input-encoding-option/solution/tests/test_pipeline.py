import json
from datetime import date
from decimal import Decimal
from unittest import mock

import pytest

import ledgerflow
from ledgerflow.config import LedgerConfig, load_config
from ledgerflow.errors import ExchangeRateError, PipelineError
from ledgerflow.io import ReadResult, RowError
from ledgerflow.pipeline import (
    Pipeline,
    PipelineContext,
    build_default_pipeline,
    rules_for_config,
    run_file,
    step_clean,
    step_convert,
)
from ledgerflow.transforms import RateTable


def test_package_exports():
    assert ledgerflow.run_file is run_file
    assert ledgerflow.__version__


def test_pipeline_runs_steps_in_order(make_txn):
    calls = []

    def first(txns, ctx):
        calls.append("first")
        return txns + [make_txn("X")]

    def second(txns, ctx):
        calls.append("second")
        return [t for t in txns if t.txn_id != "T1"]

    result = Pipeline().add("first", first).add("second", second).run([make_txn("T1")])
    assert calls == ["first", "second"]
    assert [t.txn_id for t in result.transactions] == ["X"]
    assert result.context.notes == ["first: 1 -> 2 transaction(s)", "second: 2 -> 1 transaction(s)"]


def test_pipeline_step_management():
    pipeline = Pipeline().add("clean", step_clean).add("convert", step_convert)
    with pytest.raises(ValueError, match="duplicate step name 'clean'"):
        pipeline.add("clean", step_clean)
    assert pipeline.remove("clean").step_names == ["convert"]
    with pytest.raises(KeyError, match="no step named 'nope'"):
        pipeline.remove("nope")


def test_pipeline_wraps_ledger_errors(make_txn):
    pipeline = Pipeline().add("convert", step_convert)
    with pytest.raises(PipelineError, match="step 'convert' failed: no exchange rate for 'JPY'") as info:
        pipeline.run([make_txn(currency="JPY")])
    assert info.value.step == "convert"
    assert isinstance(info.value.__cause__, ExchangeRateError)


def test_default_pipeline_steps():
    assert build_default_pipeline(LedgerConfig()).step_names == [
        "clean",
        "dedupe",
        "validate",
        "convert",
        "categorise",
    ]
    assert "business_days" in build_default_pipeline(LedgerConfig(business_days=True)).step_names


def test_rules_for_config(make_txn):
    config = LedgerConfig(rates=RateTable("EUR", {"USD": Decimal("0.9")}), max_amount=Decimal("10"))
    rules = rules_for_config(config)
    big_yen = make_txn(amount="-50", currency="JPY", description="x")
    assert sum(rule(big_yen) is not None for rule in rules) == 2


def test_default_pipeline_business_days_and_conversion(make_txn):
    config = LedgerConfig(rates=RateTable("EUR", {"USD": Decimal("0.5")}), business_days=True)
    txn = make_txn("A", "2024-01-06", "-10", currency="USD", description="Shop")
    result = build_default_pipeline(config).run([txn], PipelineContext(config=config))
    (out,) = result.transactions
    assert (out.booked_on, out.amount, out.currency) == (date(2024, 1, 8), Decimal("-5.00"), "EUR")
    assert result.ok


def test_run_file_on_sample_data(sample_csv, config_path):
    result = run_file(sample_csv, load_config(config_path))
    ctx = result.context
    assert len(result.transactions) == 28
    assert [t.txn_id for t in ctx.rejected] == ["T017", "T020"]
    assert ctx.dedupe_result.removed_count == 1
    assert [(a.txn_id, b.txn_id) for a, b in ctx.dedupe_result.suspects] == [("T010", "T011")]
    assert {t.currency for t in result.transactions} == {"EUR"}
    by_id = {t.txn_id: t for t in result.transactions}
    assert by_id["T004"].amount == Decimal("-82.71")
    assert by_id["T002"].description == "REWE Markt 123"
    assert by_id["T002"].category == "groceries"
    assert by_id["T031"].category == "uncategorised"
    assert [e.line_no for e in result.row_errors] == [17]
    assert not result.ok


def test_run_file_writes_outputs(tmp_path, sample_csv, config_path):
    out_csv = tmp_path / "clean.csv"
    out_json = tmp_path / "summary.json"
    with mock.patch("ledgerflow.io.writers._utcnow") as now:
        now.return_value.isoformat.return_value = "2024-05-01T00:00:00+00:00"
        run_file(sample_csv, load_config(config_path), output_csv=out_csv, summary_json=out_json)
    summary = json.loads(out_json.read_text(encoding="utf-8"))
    assert summary["generated_at"] == "2024-05-01T00:00:00+00:00"
    assert summary["transactions"] == 28
    assert summary["by_month"]["2024-02"]["net"] == "212.12"
    assert summary["top_spending"][0] == {"category": "housing", "spending": "3800.00"}
    assert len(out_csv.read_text(encoding="utf-8").splitlines()) == 29


def test_run_file_uses_reader_result(make_txn):
    fake = ReadResult(
        transactions=[make_txn("A", description="Coffee")],
        errors=[RowError(3, "broken")],
    )
    with mock.patch("ledgerflow.pipeline.read_transactions", return_value=fake) as reader:
        result = run_file("ignored.csv", LedgerConfig(delimiter=";"))
    reader.assert_called_once_with("ignored.csv", delimiter=";", encoding="utf-8-sig", strict=False)
    assert [t.txn_id for t in result.transactions] == ["A"]
    assert result.row_errors == [RowError(3, "broken")]


def test_run_file_skips_writers_when_no_output_requested(make_txn):
    with mock.patch("ledgerflow.pipeline.read_transactions", return_value=ReadResult()), mock.patch(
        "ledgerflow.pipeline.write_summary_json"
    ) as write_json, mock.patch("ledgerflow.pipeline.write_transactions_csv") as write_csv:
        result = run_file("ignored.csv")
    write_json.assert_not_called()
    write_csv.assert_not_called()
    assert result.ok
