from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
from dataclasses import make_dataclass
from html.parser import HTMLParser

import pytest
from conftest import DATA

from pytest_granularity.cli import main
from pytest_granularity.core.result import MacroLogEntry, RunResult
from pytest_granularity.report.html import failures_first, render_html, run_id, share_repeated_texts
from pytest_granularity.report.render import write_report
from pytest_granularity.run.runner import bounded

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
LONG_READ = "".join(f"{i:4}  line {i} of a file both runs read {XSS}\n" for i in range(40))
EVIL_PATH = 'pkg/"><svg onload="window.__pwned = 3">.py'


def run(task, policy, fault="none", outcome="passed", **extra):
    fields = dict(
        task=task,
        family="simple",
        policy=policy,
        fault=fault,
        outcome=outcome,
        mode="micro",
        steps=2,
        tokens=100,
        prompt_tokens=90,
        completion_tokens=10,
        macro_calls=0,
    )
    fields.update(extra)
    return RunResult(**fields)


HOSTILE = run(
    "evil</script>",
    "hybrid",
    fault="late",
    outcome="failed",
    failure_class="executor_exception",
    degraded=True,
    created=[EVIL_PATH],
    transitions=["route --macro--> macro", "macro --macro_failed--> classify"],
    macro_log=[MacroLogEntry("move_module", "executor_exception", 0.01)],
    diff=f"--- /dev/null\n+++ b/{EVIL_PATH}\n@@ -0,0 +1 @@\n+{XSS}\n",
    verifier_output="\n".join(f"line {i}" for i in range(100)) + "\n" + XSS,
    transcript=[
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": XSS},
        {
            "role": "assistant",
            "content": "",
            "tool_call": {"name": "write_file", "arguments": {"path": EVIL_PATH, "content": XSS}},
        },
        {"role": "tool", "content": XSS},
        {"role": "assistant", "content": "", "tool_call": {"name": "read_file", "arguments": {"path": "calc/ops.py"}}},
        {"role": "tool", "content": LONG_READ},
        # the chat-completions wire format a real model's transcript is recorded in
        {
            "role": "assistant",
            "content": XSS,
            "tool_calls": [
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "edit_file", "arguments": json.dumps({"path": EVIL_PATH, "new": XSS})},
                },
                {"id": "call_4", "type": "function", "function": {"name": "run_tests", "arguments": XSS}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_3", "content": "edited"},
        {"role": "tool", "tool_call_id": "call_4", "content": "error: arguments are not JSON"},
    ],
)
READER = run("a", "micro", transcript=[{"role": "tool", "content": LONG_READ}])
RUNS = [READER, run("b", "macro", outcome="error", error="fixture missing"), HOSTILE]


class Scripts(HTMLParser):
    """Every element a browser would treat as a script, an event handler, or a place to load from."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.handlers: list[str] = []
        self.sources: list[str] = []
        self._current: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        self.sources += [value or "" for name, value in attrs if name in ("src", "href")]
        if tag == "script":
            self._current = dict(attrs)
            self.scripts.append((self._current, ""))

    def handle_data(self, data):
        if self._current is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._current = None


def parse(page: str) -> Scripts:
    parser = Scripts()
    parser.feed(page)
    return parser


def payload(page: str) -> dict:
    """The page's data, each run with its details (kept in a block of its own) and the shared texts."""
    blocks = {
        attrs["id"]: json.loads(text) for attrs, text in parse(page).scripts if attrs.get("type") == "application/json"
    }
    data = blocks["granularity-data"]
    data["shared"] = blocks["granularity-shared"]
    data["runs"] = [{**run, **blocks[f"run-details-{index}"]} for index, run in enumerate(data["runs"])]
    return data


def test_every_run_is_in_the_page_failures_first():
    data = payload(render_html(RUNS))
    assert [r["id"] for r in data["runs"]] == ["b|macro|none", run_id(HOSTILE), "a|micro|none"]
    hostile = data["runs"][1]
    assert hostile["transcript"][2]["tool_call"]["arguments"]["content"] == XSS
    assert hostile["transitions"] == HOSTILE.transitions and hostile["macro_log"] == HOSTILE.to_dict()["macro_log"]
    assert hostile["diff"] == HOSTILE.diff and hostile["created"] == [EVIL_PATH]
    assert hostile["verifier_tail"].splitlines()[0] == "line 41" and hostile["verifier_tail"].endswith(XSS)
    assert "verifier_output" not in hostile
    assert data["filter_fields"] == ["policy", "fault", "outcome", "family"]


def test_the_page_needs_no_network_and_shows_the_summary_and_plot():
    page = render_html(RUNS)
    parsed = parse(page)
    assert all(s.startswith("data:") for s in parsed.sources), parsed.sources
    assert "<td>micro</td>" in page and "success" in page
    assert 'src="data:image/png;base64,' in page or "mean tokens per run" in page


def test_nothing_a_run_wrote_can_run_script():
    page = render_html(RUNS)
    parsed = parse(page)
    # JSON data blocks only (the table, the shared texts, each run's details), then the page's own code
    assert [attrs.get("type") for attrs, _ in parsed.scripts] == ["application/json"] * (2 + len(RUNS)) + [None]
    assert parsed.handlers == []
    assert "<script>window" not in page and "<svg onload" not in page and "<img src=x" not in page
    # no data block can be closed early: '<' inside them is escaped
    blocks = [text for _, text in parsed.scripts[:-1]]
    assert (
        all("</script>" not in block for block in blocks) and "\\u003c" in blocks[1] + blocks[3]
    )  # the shared texts, the hostile run's details
    # the page's script never parses text as HTML
    code = parsed.scripts[-1][1]
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", code)


def test_the_policy_allows_only_the_pages_own_script_and_style():
    page = render_html(RUNS)
    policy = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    code = parse(page).scripts[-1][1]
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)

    def digest(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == digest(code)
    assert directives["style-src"] == digest(style)
    assert directives["img-src"] == "data:"


def test_repeated_long_texts_are_stored_once_and_none_is_mistaken_for_a_reference():
    data = payload(render_html(RUNS))
    hostile, reader = data["runs"][1], data["runs"][2]
    reference = hostile["transcript"][5]["content"]
    assert reference == reader["transcript"][0]["content"] and data["shared"][int(reference[1:])] == LONG_READ
    assert hostile["transcript"][1]["content"] == XSS  # short texts stay in place

    sneaky = "\u00000"  # a text that looks like a reference is itself shared, so it reads back as itself
    runs = [
        {"diff": sneaky, "verifier_tail": "", "transcript": []},
        {"diff": LONG_READ, "verifier_tail": LONG_READ, "transcript": []},
    ]
    shared = share_repeated_texts(runs)
    assert [shared[int(r[key][1:])] for r in runs for key in ("diff", "verifier_tail") if r[key]] == [
        sneaky,
        LONG_READ,
        LONG_READ,
    ]


def test_a_huge_diff_is_cut_with_a_note():
    assert bounded("abc", 3) == "abc"
    assert bounded("abcdef", 4) == "abcd\n... diff truncated: 2 more characters\n"


def test_failures_first_orders_errors_then_failures_then_passes():
    assert [r.outcome for r in failures_first(RUNS)] == ["error", "failed", "passed"]


# A record with the provider's own usage (real-model adapters add these fields).
WithProvider = make_dataclass(
    "WithProvider",
    [
        (name, "int | None", None)
        for name in ("provider_prompt_tokens", "provider_completion_tokens", "provider_cached_tokens")
    ],
    bases=(RunResult,),
    frozen=True,
)


def test_provider_tokens_get_a_column_only_when_present():
    assert "provider_tokens" not in payload(render_html(RUNS))["run_columns"]
    billed = WithProvider.from_dict(
        {**run("c", "micro").to_dict(), "provider_prompt_tokens": 80, "provider_completion_tokens": 9}
    )
    data = payload(render_html([billed, run("d", "micro")]))
    assert data["run_columns"][data["run_columns"].index("tokens") + 1] == "provider_tokens"
    assert data["runs"][0]["provider_prompt_tokens"] == 80 and data["runs"][0]["provider_cached_tokens"] is None


def test_granularity_report_builds_the_page_from_a_saved_report(tmp_path, capsys):
    path, _ = write_report(tmp_path / "out.json", RUNS)
    page = tmp_path / "site" / "runs.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    assert "html: " in capsys.readouterr().err
    assert len(payload(page.read_text())["runs"]) == 3


def test_granularity_html_option_writes_the_page(pytester):
    shutil.copytree(DATA / "tasks" / "fix-add", pytester.path / "tasks" / "fix-add")
    shutil.copytree(DATA / "minipkg", pytester.path / "minipkg")
    result = pytester.runpytest(
        "tasks", "--granularity=micro", "--granularity-html=out/runs.html", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["html: *runs.html"])
    data = payload((pytester.path / "out" / "runs.html").read_text())
    (only,) = data["runs"]
    assert only["outcome"] == "passed" and only["diff"].startswith("--- a/")
    assert any(m["role"] == "assistant" for m in only["transcript"])


def test_pytest_html_gets_columns_the_run_inline_and_a_link(pytester):
    pytest.importorskip("pytest_html")
    shutil.copytree(DATA / "tasks" / "fix-add", pytester.path / "tasks" / "fix-add")
    shutil.copytree(DATA / "minipkg", pytester.path / "minipkg")
    result = pytester.runpytest(
        "tasks",
        "--granularity=micro",
        "--html=out/session.html",
        "--self-contained-html",
        "--granularity-html=out/runs.html",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1)
    page = (pytester.path / "out" / "session.html").read_text()
    table = html.unescape(re.search(r'data-jsonblob="([^"]*)"', page).group(1))
    data = json.loads(table)
    (test,) = [t for tests in data["tests"].values() for t in tests]
    assert [re.sub("<[^>]+>", "", c) for c in test["resultsTableRow"][2:6]] == [
        "micro / none",
        str(_run(pytester)["steps"]),
        str(_run(pytester)["tokens"]),
        "-",
    ]
    assert (
        "granularity run" in test["log"]
        and "transition: route --micro--&gt; micro" in test["log"]
        and "+SCALE = 1" in test["log"]
    )
    assert [e["content"] for e in test["extras"]] == ["runs.html#run=fix-add%7Cmicro%7Cnone"]
    assert "<th>tokens</th>" in html.unescape(page)


def _run(pytester) -> dict:
    (only,) = payload((pytester.path / "out" / "runs.html").read_text())["runs"]
    return only
