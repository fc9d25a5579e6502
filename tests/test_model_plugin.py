"""The openai agent through the plugin: the reference agent over HTTP, recording, replaying, options."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO
from test_plugin import without_latency

from pytest_granularity.agents.stub_server import ChatServer, ReferencePlayer
from pytest_granularity.core.tasks import load_task

TASKS = ("textkit-recover-min-keyword-length",)
COMPARED = (
    "task",
    "policy",
    "fault",
    "outcome",
    "steps",
    "tool_calls",
    "macro_calls",
    "failure_class",
    "degraded",
    "transitions",
    "created",
    "modified",
    "deleted",
)


def run(pytester: pytest.Pytester, name: str, *args: str) -> list[dict]:
    paths = [str(REPO / "benchmark_tasks" / t) for t in TASKS]
    result = pytester.runpytest(
        *paths,
        "--granularity=all",
        "-p",
        "no:cacheprovider",
        f"--granularity-report={pytester.path / name}.json",
        *args,
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()[-2000:]
    return [json.loads(line) for line in (pytester.path / f"{name}.jsonl").read_text().splitlines()]


def test_the_reference_agent_over_http_records_replays_and_agrees_with_in_process(pytester):
    pytest.importorskip("openai")
    in_process = run(pytester, "inproc")
    player = ReferencePlayer(load_task(REPO / "benchmark_tasks" / t) for t in TASKS)
    cache = pytester.path / "cassette"
    with ChatServer(player) as server:
        live = run(
            pytester,
            "live",
            "--granularity-agent=openai",
            "--granularity-model=reference",
            f"--granularity-base-url={server.base_url}",
            f"--granularity-model-cache={cache}",
            "--granularity-model-cache-mode=record",
            "--granularity-suggestions=off",  # as the reference agent in process: the same tools, the same tokens
        )
    assert [{k: r[k] for k in COMPARED} for r in live] == [{k: r[k] for k in COMPARED} for r in in_process]
    assert [r["local_tokens"] for r in live] == [r["tokens"] for r in in_process]
    recordings = [json.loads(p.read_text())["response"]["usage"] for p in cache.iterdir()]
    assert sum(u["prompt_tokens"] for u in recordings) == player.billed.prompt, (
        "every answer the server billed was recorded once"
    )
    answered = [c["response"]["usage"] for r in live for c in r["model_calls"]]
    assert sum(r["provider_prompt_tokens"] for r in live) == sum(u["prompt_tokens"] for u in answered)
    assert sum(r["provider_completion_tokens"] for r in live) == sum(u["completion_tokens"] for u in answered)
    assert all(
        r["token_source"] == "provider" and r["tokens"] == r["provider_prompt_tokens"] + r["provider_completion_tokens"]
        for r in live
    )
    replayed = run(
        pytester,
        "replay",
        "--granularity-agent=openai",
        "--granularity-model=reference",
        f"--granularity-model-cache={cache}",
        "--granularity-model-cache-mode=replay",
        "--granularity-suggestions=off",
    )
    assert len(replayed) == len(live) and all(r["outcome"] != "error" for r in replayed)
    for suffix in (".json", ".jsonl"):
        recorded, again = ((pytester.path / f"{name}{suffix}").read_text() for name in ("live", "replay"))
        assert without_latency(again) == without_latency(recorded)


def test_the_openai_agent_needs_a_model(pytester):
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASKS[0]),
        "--granularity=micro",
        "--granularity-agent=openai",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--granularity-agent=openai needs --granularity-model=NAME*"])


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--granularity-model-cache-mode=replay",
            "*--granularity-model-cache-mode=replay needs --granularity-model-cache=DIR*",
        ),
        ("--granularity-token-source=both", "*--granularity-token-source: 'both' is not provider or local*"),
        ("--granularity-temperature=warm", "*--granularity-temperature: 'warm' is not a number*"),
    ],
)
def test_bad_model_options_are_usage_errors(pytester, option, message):
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASKS[0]),
        "--granularity=micro",
        "--granularity-agent=openai",
        "--granularity-model=m",
        option,
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_prices_come_from_the_ini_file(pytester):
    ini = pytester.makeini("[pytest]\ngranularity_prices =\n    m 1.5 nonsense\n")
    result = pytester.runpytest(
        str(REPO / "benchmark_tasks" / TASKS[0]),
        "-c",
        str(ini),
        "--granularity=micro",
        "--granularity-agent=openai",
        "--granularity-model=m",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*granularity_prices: 'm 1.5 nonsense' is not 'MODEL PROMPT COMPLETION [[]CACHED[]]'*"]
    )


def test_the_plugin_does_not_import_the_sdk():
    code = (
        "import sys, pytest_granularity.plugin, pytest_granularity.plugin.model_plugin; print('openai' in sys.modules)"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "False"


def test_update_baseline_creates_a_baseline_at_a_new_path(pytester):
    import shutil

    from conftest import DATA

    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest(
        "tasks",
        "--granularity=micro",
        "--granularity-baseline=.granularity/model-baseline.json",
        "--granularity-update-baseline",
    )
    assert result.ret == pytest.ExitCode.OK
    assert (
        json.loads((pytester.path / ".granularity/model-baseline.json").read_text())["runs"]["fix-add|micro|none"][
            "success"
        ]
        is True
    )
