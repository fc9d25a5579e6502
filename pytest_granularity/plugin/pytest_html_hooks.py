"""For users of pytest-html: a benchmark run's figures as columns of its report, and the run inline.

pytest-html already writes the page of a test session, so where it is installed we add to it
rather than re-implement it: columns (policy and fault, steps, tokens, failure class), the run's
summary, transitions, macro log and diff in the test's expandable section, and a link into the
standalone ``--granularity-html`` page when one is written. pytest-html escapes nothing it is
given as HTML, so every cell here is escaped. Registered only when pytest-html is present: an
unknown hook name would break plain pytest.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from ..core.result import RunResult, records_in

COLUMNS = ("policy / fault", "steps", "tokens", "failure class")
INLINE_DIFF_LINES = 80


def record_of(report: Any) -> RunResult | None:
    records = records_in(getattr(report, "user_properties", ()))
    return records[0] if records else None


def cells_of(result: RunResult | None) -> list[str]:
    if result is None:
        return ["<td></td>"] * len(COLUMNS)
    values = (f"{result.policy} / {result.fault}", str(result.steps), str(result.tokens), result.failure_class or "-")
    return [f"<td>{escape(v)}</td>" for v in values]


def inline_section(result: RunResult) -> str:
    """The run as text for pytest-html's expandable log: what happened, what changed, and the start of the diff."""
    lines = [f"{' granularity run ':-^80}", result.summary()]
    lines += [f"transition: {t}" for t in result.transitions]
    lines += [f"macro {c.macro}: {c.failure_class or 'ok'} in {c.seconds} s" for c in result.macro_log]
    diff = result.diff.splitlines()
    if diff:
        lines.append(f"{' workspace diff ':-^80}")
        lines += diff[:INLINE_DIFF_LINES]
        if len(diff) > INLINE_DIFF_LINES:
            lines.append(f"... {len(diff) - INLINE_DIFF_LINES} more lines in the --granularity-html page")
    return escape("\n".join(lines)) + "\n"


class PytestHtmlHooks:
    def __init__(self, config: pytest.Config, page: Path | None) -> None:
        self.config = config
        self.page = page

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells[2:2] = [f"<th>{escape(c)}</th>" for c in COLUMNS]

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        cells[2:2] = cells_of(record_of(report))

    def pytest_html_results_table_html(self, report: Any, data: list[str]) -> None:
        result = record_of(report)
        if result is not None:
            data.append(inline_section(result))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        report = outcome.get_result()
        result = record_of(report) if report.when == "call" else None
        if result is None or self.page is None:
            return
        from pytest_html import extras

        from ..report.html import run_id

        href = f"{self._page_href()}#run={quote(run_id(result), safe='')}"
        report.extras = [*getattr(report, "extras", []), extras.url(href, name="granularity run")]

    def _page_href(self) -> str:
        """The standalone page, relative to pytest-html's report so the two can travel together."""
        assert self.page is not None
        html_path = self.config.getoption("htmlpath", None)
        base = Path(html_path).resolve().parent if html_path else Path.cwd()
        return Path(os.path.relpath(self.page.resolve(), base)).as_posix()
