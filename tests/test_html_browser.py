"""The page as a person uses it, in a real headless Chromium: filter, open a run, expand its transcript.

Skipped where no Chromium is installed (``scripts/install-browser.sh`` installs the OS's).
"""

from __future__ import annotations

import json

import pytest
from chromium import FIRST_FRAME, Chromium, find_chromium, replicate
from test_html_report import HOSTILE, LONG_READ, RUNS, XSS

from pytest_granularity.report.html import write_html

EXECUTABLE = find_chromium()
pytestmark = pytest.mark.skipif(EXECUTABLE is None, reason="no Chromium installed (scripts/install-browser.sh)")

VIOLATIONS = "window.__violations = []; document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.violatedDirective))"


@pytest.fixture(scope="module")
def browser():
    with Chromium(EXECUTABLE) as chromium:
        yield chromium


def test_filter_open_a_run_and_read_its_transcript(browser, tmp_path):
    page = write_html(tmp_path / "runs.html", RUNS)
    browser.open(page)
    browser.evaluate(VIOLATIONS)
    assert (
        browser.evaluate("document.querySelectorAll('tr.run').length") == 3
    )  # the page's own script ran under its policy
    assert browser.evaluate(
        "document.querySelector('.plot img') === null || document.querySelector('.plot img').naturalWidth > 0"
    )

    browser.choose("#filter-outcome", "failed")
    assert browser.evaluate("document.getElementById('shown').textContent") == "(showing 1 of 3)"
    assert browser.evaluate(
        "[...document.querySelectorAll('tr.run')].filter(r => !r.hidden).map(r => r.dataset.runId)"
    ) == ["evil</script>|hybrid|late"]

    browser.click("tr.run:not([hidden])")
    assert browser.evaluate("document.querySelector('tr.details .transcript') === null")  # not built until opened
    browser.click("tr.details details.transcript-section > summary")
    messages = browser.evaluate("[...document.querySelectorAll('tr.details .msg')].map(m => m.textContent)")
    assert len(messages) == len(HOSTILE.transcript)
    assert messages[2].startswith("assistant callsstep 1 · write_file") and XSS in messages[3]
    # a wire-format message: its text, then each call with its id and arguments, raw when not a JSON object
    assert messages[6].startswith("assistant calls" + XSS + "step 3 · edit_file (call_3)path = ")
    assert messages[6].endswith("step 4 · run_tests (call_4)arguments (not a JSON object) = " + XSS)
    assert messages[7] == "observation for call_3edited"
    # a long observation is folded to its first line; opened, it shows the whole text (stored once in the page)
    assert browser.evaluate("document.querySelectorAll('tr.details .msg.tool details pre').length") == 0
    browser.click("tr.details .msg.tool details > summary")
    assert browser.evaluate("document.querySelector('tr.details .msg.tool details pre').textContent") == LONG_READ
    diff = browser.evaluate("document.querySelector('tr.details pre.diff').textContent")
    assert diff == HOSTILE.diff + "\n"
    transitions = browser.evaluate(
        "[...document.querySelectorAll('tr.details ol.transitions li')].map(li => li.textContent)"
    )
    assert transitions == HOSTILE.transitions
    assert (
        browser.evaluate("document.querySelector('tr.details table.macro-log tbody td').textContent") == "move_module"
    )

    # what the run wrote stayed text: no element, no handler, no script ran, nothing was even attempted
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('svg, img:not(.plot img), iframe').length") == 0
    assert browser.evaluate("window.__violations") == []
    browser.screenshot(tmp_path / "runs.png")
    assert (tmp_path / "runs.png").stat().st_size > 10_000


def test_the_policy_blocks_script_injected_into_the_page(browser, tmp_path):
    browser.open(write_html(tmp_path / "runs.html", RUNS))
    browser.evaluate(VIOLATIONS)
    browser.evaluate(
        "const s = document.createElement('script'); s.textContent = 'window.__injected = 1'; document.body.append(s)"
    )
    browser.settle()
    assert browser.evaluate("typeof window.__injected") == "undefined"
    assert browser.evaluate("window.__violations") == ["script-src-elem"]


def test_a_link_opens_its_run(browser, tmp_path):
    page = write_html(tmp_path / "runs.html", RUNS)
    browser.call(
        "Page.navigate", {"url": page.as_uri() + "#run=" + json.dumps("a|micro|none")[1:-1].replace("|", "%7C")}
    )
    browser.wait_for("Page.loadEventFired")
    assert browser.evaluate("document.querySelector('tr.run.open').dataset.runId") == "a|micro|none"


def test_the_page_fetches_nothing(browser, tmp_path):
    """Opened, with a run and its transcript shown, the page asked for its own file and nothing else."""
    page = write_html(tmp_path / "runs.html", RUNS)
    browser.call("Network.enable")
    try:
        browser.open(page)
        browser.click("tr.run")
        browser.click("tr.details details.transcript-section > summary")
        requests = browser.requests()
    finally:
        browser.call("Network.disable")
    assert [url for url in requests if not url.startswith("data:")] == [page.as_uri()]


FIRST_FRAME_GUARD_MS = 5000
"""A guard against the page growing slow, far above what scripts/measure_html.py measures (about 0.9 s for
5,000 runs on a busy 2-core machine, docs/report.md), so a loaded CI machine does not trip it."""


def test_five_thousand_runs_open_at_once_and_stay_usable(browser, tmp_path):
    runs = replicate(RUNS, 5000)
    page = write_html(tmp_path / "runs.html", runs)
    browser.open(page)
    assert browser.evaluate(FIRST_FRAME) < FIRST_FRAME_GUARD_MS
    assert browser.evaluate("document.querySelectorAll('tr.run').length") == 500
    assert (
        browser.evaluate("document.getElementById('shown').textContent")
        == "(showing 5000 of 5000), the first 500 listed"
    )
    browser.click("button.more")
    assert browser.evaluate("document.querySelectorAll('tr.run').length") == 1000
    browser.choose("#filter-outcome", "failed")
    failed = sum(r.outcome == "failed" for r in runs)
    assert (
        browser.evaluate("document.getElementById('shown').textContent")
        == f"(showing {failed} of 5000), the first 500 listed"
    )
    assert browser.evaluate(
        "[...document.querySelectorAll('tr.run td.outcome')].every(td => td.textContent === 'failed')"
    )
    browser.click("tr.run")
    browser.click("tr.details details.transcript-section > summary")
    assert len(browser.evaluate("[...document.querySelectorAll('tr.details .msg')]")) == len(HOSTILE.transcript)
    assert browser.evaluate("document.querySelector('tr.details pre.diff').textContent") == HOSTILE.diff + "\n"
