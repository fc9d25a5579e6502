"""Measure the browsable report: its size, and how fast headless Chromium opens it.

Usage: python scripts/measure_html.py REPORT.json [--runs N] [--repeat N] [--keep PAGE.html] [--screenshot PNG]

Builds the page from a saved --granularity-report, opens it N times (a fresh tab each time) and
prints the median of the Performance API's figures, in milliseconds from navigation start:
DOMContentLoaded, the load event, the first frame painted after it (the summary and the first
500 run rows, all the page lists before "show more"); and the time to open the first run's
details and its transcript. With ``--runs N`` the report's runs are copied to N (each copy's
task and texts its own). It also counts what the page asked for besides its own file and data
URIs (it should be nothing).
Needs Chromium (scripts/install-browser.sh).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from chromium import FIRST_FRAME, Chromium, find_chromium, replicate  # noqa: E402

from pytest_granularity.report.html import write_html  # noqa: E402
from pytest_granularity.report.render import read_records  # noqa: E402

LISTED = 500
"""Run rows the page lists at first (its PAGE); "show more" adds the next ones."""


def shoot(browser: Chromium, page: Path, path: Path) -> None:
    """A degraded run, as a person finds it: filter to hybrid, late fault; open the first; expand its transcript."""
    browser.open(page)
    browser.screenshot(path.with_name(path.stem + "-summary.png"))
    browser.choose("#filter-policy", "hybrid")
    browser.choose("#filter-fault", "late")
    browser.click("tr.run:not([hidden])")
    browser.click("tr.details details.transcript-section > summary")
    browser.evaluate("scrollTo(0, 0)")  # keeps the sticky table header out of the captured area
    browser.screenshot(path, selector="#runs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, help="copy the report's runs to this many")
    parser.add_argument("--keep", type=Path, help="also keep the page here")
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="filter to failed runs, open the first with its transcript, and take a screenshot",
    )
    args = parser.parse_args()
    executable = find_chromium()
    if executable is None:
        print("no Chromium found: run scripts/install-browser.sh", file=sys.stderr)
        return 2
    records = read_records(args.report)
    if args.runs:
        records = replicate(records, args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        page = write_html(args.keep or Path(scratch) / "runs.html", records)
        build = time.perf_counter() - started
        size = page.stat().st_size
        loads, ready, painted, opened = [], [], [], []
        with Chromium(executable) as browser:
            browser.call("Network.enable")
            for _ in range(args.repeat):
                browser.open(page)
                fetched = [u for u in browser.requests() if u != page.as_uri() and not u.startswith("data:")]
                timing = browser.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
                loads.append(timing["loadEventEnd"])
                painted.append(browser.evaluate(FIRST_FRAME))
                ready.append(timing["domContentLoadedEventEnd"])
                assert browser.evaluate("document.querySelectorAll('tr.run').length") == min(len(records), LISTED)
                before = browser.evaluate("performance.now()")
                browser.click("tr.run")
                browser.click("tr.details details.transcript-section > summary")
                opened.append(browser.evaluate("performance.now()") - before)
            if args.screenshot:
                shoot(browser, page, args.screenshot)
    print(f"runs: {len(records)}")
    print(f"fetched besides the page and data URIs: {len(fetched)} {fetched[:3]}")
    print(f"page: {size} bytes ({size / 1e6:.2f} MB), built in {build:.2f} s")
    print(
        f"DOMContentLoaded: median {statistics.median(ready):.0f} ms of {args.repeat} "
        f"({', '.join(f'{v:.0f}' for v in ready)})"
    )
    print(f"load event end:   median {statistics.median(loads):.0f} ms ({', '.join(f'{v:.0f}' for v in loads)})")
    print(
        f"first frame after load: median {statistics.median(painted):.0f} ms ({', '.join(f'{v:.0f}' for v in painted)})"
    )
    print(
        "open first run and its transcript (includes the DevTools round trips): "
        f"median {statistics.median(opened):.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
