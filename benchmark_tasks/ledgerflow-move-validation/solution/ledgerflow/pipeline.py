"""A composable pipeline that runs transaction-processing steps in order.

Each step is a function ``(transactions, context) -> transactions``.  The
:class:`PipelineContext` carries the configuration and collects side results
such as the validation report and the rows dropped as duplicates.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import ledgerflow.transforms as tx
from ledgerflow.config import LedgerConfig
from ledgerflow.errors import LedgerError, PipelineError
from ledgerflow.io import (
    RowError,
    read_transactions,
    summary_payload,
    write_summary_json,
    write_transactions_csv,
)
from ledgerflow.records import Transaction

from . import dedupe
from .checks import validation

logger = logging.getLogger(__name__)


@dataclass
class PipelineContext:
    """Shared state passed to every step of a pipeline run."""

    config: LedgerConfig = field(default_factory=LedgerConfig)
    report: validation.ValidationReport | None = None
    rejected: list[Transaction] = field(default_factory=list)
    dedupe_result: dedupe.DedupeResult | None = None
    notes: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        """Record a progress message for the run."""
        self.notes.append(message)
        logger.debug(message)


StepFunc = Callable[[list[Transaction], PipelineContext], Iterable[Transaction]]


@dataclass(frozen=True)
class Step:
    """A named pipeline step."""

    name: str
    func: StepFunc


@dataclass
class PipelineResult:
    """The transactions produced by a run plus everything learned along the way."""

    transactions: list[Transaction]
    context: PipelineContext
    row_errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no rows were unreadable and validation found no errors."""
        report = self.context.report
        return not self.row_errors and (report is None or report.ok)


class Pipeline:
    """An ordered list of :class:`Step` objects."""

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self._steps: list[Step] = []
        for step in steps:
            self.add(step.name, step.func)

    @property
    def step_names(self) -> list[str]:
        """Names of the steps in execution order."""
        return [step.name for step in self._steps]

    def add(self, name: str, func: StepFunc) -> Pipeline:
        """Append a step; returns the pipeline so calls can be chained."""
        if name in self.step_names:
            raise ValueError(f"duplicate step name {name!r}")
        self._steps.append(Step(name, func))
        return self

    def remove(self, name: str) -> Pipeline:
        """Remove the step called ``name``."""
        for index, step in enumerate(self._steps):
            if step.name == name:
                del self._steps[index]
                return self
        raise KeyError(f"no step named {name!r}; steps are: {', '.join(self.step_names)}")

    def run(
        self, transactions: Iterable[Transaction], context: PipelineContext | None = None
    ) -> PipelineResult:
        """Run every step in order, wrapping ledger errors in :class:`PipelineError`."""
        ctx = context if context is not None else PipelineContext()
        current = list(transactions)
        for step in self._steps:
            before = len(current)
            try:
                current = list(step.func(current, ctx))
            except LedgerError as exc:
                raise PipelineError(f"step {step.name!r} failed: {exc}", step=step.name) from exc
            ctx.note(f"{step.name}: {before} -> {len(current)} transaction(s)")
        return PipelineResult(transactions=current, context=ctx)


def rules_for_config(config: LedgerConfig) -> list[validation.Rule]:
    """Validation rules implied by a configuration."""
    rules = list(validation.DEFAULT_RULES)
    rules.append(validation.allowed_currencies(config.currencies))
    if config.max_amount is not None:
        rules.append(validation.max_abs_amount(config.max_amount))
    return rules


def step_clean(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Normalise whitespace in descriptions."""
    return tx.clean_descriptions(transactions)


def step_dedupe(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Drop exact duplicates and remember near-duplicate suspects."""
    result = dedupe.deduplicate(transactions, window_days=ctx.config.dedupe_window_days)
    ctx.dedupe_result = result
    return result.kept


def step_validate(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Validate and set aside transactions with errors."""
    report = validation.validate(transactions, rules_for_config(ctx.config))
    ctx.report = report
    valid, rejected = validation.partition(transactions, report)
    ctx.rejected.extend(rejected)
    return valid


def step_business_days(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Move weekend bookings to the next business day."""
    return [tx.normalise_booking_date(txn) for txn in transactions]


def step_convert(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Convert every amount to the configured base currency."""
    return tx.convert_all(transactions, ctx.config.rates, ctx.config.base_currency)


def step_categorise(transactions: list[Transaction], ctx: PipelineContext) -> list[Transaction]:
    """Assign categories from the configured rules."""
    return tx.categorise_all(transactions, ctx.config.category_rules)


def build_default_pipeline(config: LedgerConfig) -> Pipeline:
    """The standard clean -> dedupe -> validate -> convert -> categorise pipeline."""
    pipeline = Pipeline().add("clean", step_clean).add("dedupe", step_dedupe)
    pipeline.add("validate", step_validate)
    if config.business_days:
        pipeline.add("business_days", step_business_days)
    return pipeline.add("convert", step_convert).add("categorise", step_categorise)


def run_file(
    input_path: str | Path,
    config: LedgerConfig | None = None,
    *,
    output_csv: str | Path | None = None,
    summary_json: str | Path | None = None,
    strict: bool = False,
) -> PipelineResult:
    """Read ``input_path``, run the default pipeline and optionally write outputs."""
    config = config if config is not None else LedgerConfig()
    read = read_transactions(input_path, delimiter=config.delimiter, strict=strict)
    result = build_default_pipeline(config).run(read.transactions, PipelineContext(config=config))
    result.row_errors = list(read.errors)
    if output_csv is not None:
        write_transactions_csv(output_csv, result.transactions, delimiter=config.delimiter)
    if summary_json is not None:
        write_summary_json(
            summary_json, summary_payload(result.transactions, currency=config.base_currency)
        )
    return result
