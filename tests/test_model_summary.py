"""What a model did beside the table: replies without a call, replies cut at the cap, stop reasons, servers."""

from __future__ import annotations

import json

from pytest_granularity.core.result import RunResult
from pytest_granularity.report.model_summary import ModelRuns, fingerprints, model_runs
from pytest_granularity.report.render import render_report, write_report

SERVER = "smollm2 sha256:0123456789abcdef chatml-function-calling n_ctx=8192 threads=1 cap=256"


def reply(finish: str, called: bool, fingerprint: str | None = SERVER, cut: int = 0) -> dict:
    message = {"role": "assistant", "content": ""}
    if called:
        message["tool_calls"] = [{"id": "x", "type": "function", "function": {"name": "finish", "arguments": "{}"}}]
    response = {"choices": [{"finish_reason": finish, "message": message}]}
    if fingerprint:
        response["system_fingerprint"] = fingerprint
    request = {"model": "smollm2", **({"cut_observations": cut} if cut else {})}
    return {"request": request, "response": response}


def run(policy: str, stop: str, calls: list[dict], task: str = "t") -> RunResult:
    return RunResult(
        task=task, family="simple", policy=policy, fault="none", outcome="failed", mode="micro", steps=len(calls),
        tokens=10, prompt_tokens=8, completion_tokens=2, macro_calls=0, stop_reason=stop,
        model_calls=calls,
    )  # fmt: skip


def test_replies_are_counted_per_policy_from_the_responses():
    results = [
        run(
            "micro",
            "step_limit",
            [reply("tool_calls", True), reply("stop", False, cut=2), reply("length", False, cut=1)],
        ),
        run("micro", "finished", [reply("tool_calls", True)], task="u"),
        run("macro", "macro_failed", [reply("length", False, fingerprint="other")]),
        run("reference", "finished", []),
    ]
    assert model_runs(results) == [
        ModelRuns("macro", 1, 1, 1, 1, 0, {"macro_failed": 1}),
        ModelRuns("micro", 2, 4, 2, 1, 3, {"finished": 1, "step_limit": 1}),
    ]
    assert fingerprints(results) == ["other", SERVER]


def test_the_report_shows_them_only_for_model_runs(tmp_path):
    modelled = [run("micro", "step_limit", [reply("stop", False)])]
    assert "model replies:" in render_report(modelled) and f"server: {SERVER}" in render_report(modelled)
    assert "model replies:" not in render_report([run("micro", "finished", [])])
    summary, _ = write_report(tmp_path / "out.json", modelled)
    data = json.loads(summary.read_text())
    assert data["model_servers"] == [SERVER]
    assert data["model_runs"][0]["without_call"] == 1
    summary, _ = write_report(tmp_path / "plain.json", [run("micro", "finished", [])])
    assert "model_runs" not in json.loads(summary.read_text())
