"""Suggested calls: what a macro phase offers a caller that cannot work the arguments out itself.

A macro's suggested calls are what its derivation proposes and its own preconditions accept, from
the prompt and the initial files only. Offered ``listed`` (in the description and as the
parameters' ``examples``) or ``constrained`` (as the only values the parameters allow), they put
the likeliest macro first; ``off`` leaves the tools as they were. The no-model baseline calls the
first one and nothing else.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import REPO

from pytest_granularity.agents.first_suggestion import first_suggestion
from pytest_granularity.core.tasks import load_task
from pytest_granularity.core.tools import FINISH
from pytest_granularity.core.transcript import ToolCall
from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.macros.suggestions import CONSTRAINED, LISTED, NONE_NOTE, OFF, offered_schema
from pytest_granularity.process.tool_context import ToolContext
from pytest_granularity.run.executor import Limits, Run
from pytest_granularity.run.policies import FIXED_POLICIES

GBP = "ledgerflow-fix-gbp-rate"
"""The prompt says the rate 'was typed as 1.71 instead of 1.17' in two files it names."""
GBP_CALL = {"files": ["ledgerflow.json", "README.md"], "new": "1.17", "old": "1.71"}


@pytest.fixture(scope="module")
def macros() -> MacroRegistry:
    return MacroRegistry.load()


def _start(task_id: str, macros: MacroRegistry, suggestions: str) -> list[dict]:
    task = load_task(REPO / "benchmark_tasks" / task_id)
    with Workspace.for_task(task) as ws:
        run = Run.start(task, FIXED_POLICIES["hybrid"], ToolContext(ws), macros, Limits(5, suggestions=suggestions))
        return run.transcript.tools


def test_off_offers_the_contracts_tools_as_they_are(macros):
    tools = _start(GBP, macros, OFF)
    assert tools[:-1] == macros.tool_schemas(macros.offer(load_task(REPO / "benchmark_tasks" / GBP).prompt))


def test_constrained_allows_only_the_suggested_calls_and_puts_the_likeliest_macro_first(macros):
    tools = _start(GBP, macros, CONSTRAINED)
    names = [t["function"]["name"] for t in tools]
    assert names == ["replace_and_verify", FINISH], "macros that suggest nothing cannot be called: not offered"
    assert tools[0]["function"]["parameters"] == {"type": "object", "enum": [GBP_CALL]}
    assert json.dumps(GBP_CALL, sort_keys=True) in tools[0]["function"]["description"]


def test_listed_keeps_the_schema_and_adds_the_calls_as_examples(macros):
    tools = _start(GBP, macros, LISTED)
    by_name = {t["function"]["name"]: t["function"] for t in tools}
    replace = by_name["replace_and_verify"]
    assert replace["parameters"]["examples"] == [GBP_CALL]
    assert replace["parameters"]["required"] == ["files", "old", "new"], "the contract's schema is kept"
    assert NONE_NOTE in by_name["move_module"]["description"]
    assert first_suggestion(tools) == ("replace_and_verify", GBP_CALL)


def test_retrieval_offers_the_macros_that_suggest_a_call_for_the_task():
    task = load_task(REPO / "benchmark_tasks" / "textkit-move-stemmer")
    library = MacroRegistry.load([REPO / "examples" / "macros"])
    assert "move_module" not in [m.name for m in library.offer(task.prompt, 2)], "words alone leave it out"
    with Workspace.for_task(task) as ws:
        limits = Limits(5, retrieval_k=2, suggestions=LISTED)
        tools = Run.start(task, FIXED_POLICIES["macro"], ToolContext(ws), library, limits).transcript.tools
    assert [t["function"]["name"] for t in tools] == ["move_module", "replace_and_verify", FINISH]
    assert first_suggestion(tools)[0] == "move_module"


def test_a_macro_without_derivation_is_offered_unchanged(macros):
    macro = macros.get("replace_and_verify")
    assert macro is not None
    plain = dataclasses.replace(macro, derive=None)
    assert offered_schema(plain, [], CONSTRAINED) == plain.tool_schema()
    assert offered_schema(macro, [], CONSTRAINED) is None
    assert offered_schema(macro, [GBP_CALL], OFF) == macro.tool_schema()


def test_the_baseline_finds_nothing_to_call_without_suggestions(macros):
    assert first_suggestion(_start(GBP, macros, OFF)) is None


def _run(pytester: pytest.Pytester, *args: str) -> list[dict]:
    report = pytester.path / "out.json"
    pytester.runpytest(
        str(REPO / "benchmark_tasks" / GBP),
        "--granularity=macro,hybrid",
        "--granularity-agent=first-suggestion",
        f"--granularity-report={report}",
        "-p",
        "no:cacheprovider",
        *args,
    )
    runs = [json.loads(line) for line in report.with_suffix(".jsonl").read_text().splitlines()]
    return sorted(runs, key=lambda r: r["policy"], reverse=True)


def test_the_no_model_baseline_solves_what_its_first_suggestion_solves_and_nothing_more(pytester):
    suggested = _run(pytester)
    assert [(r["policy"], r["outcome"], r["steps"]) for r in suggested] == [
        ("macro", "passed", 1),
        ("hybrid", "passed", 1),
    ]
    assert all(r["macro_log"][0]["macro"] == "replace_and_verify" for r in suggested)
    without = _run(pytester, "--granularity-suggestions=off")
    assert [(r["policy"], r["outcome"], r["macro_calls"]) for r in without] == [
        ("macro", "failed", 0),
        ("hybrid", "failed", 0),
    ]


def test_a_constrained_call_once_made_is_withdrawn(macros):
    task = load_task(REPO / "benchmark_tasks" / GBP)
    with Workspace.for_task(task) as ws:
        run = Run.start(task, FIXED_POLICIES["hybrid"], ToolContext(ws), macros, Limits(5, suggestions=CONSTRAINED))
        run.step(ToolCall("replace_and_verify", dict(GBP_CALL)))
        assert [t["function"]["name"] for t in run.transcript.tools] == [FINISH]
        assert run.execution.offered == ()


def test_a_success_withdraws_the_suggestions_it_made_stale_and_suggests_nothing_new(macros):
    task = load_task(REPO / "benchmark_tasks" / "hookshot-move-urls-into-util")
    with Workspace.for_task(task) as ws:
        run = Run.start(task, FIXED_POLICIES["macro"], ToolContext(ws), macros, Limits(5, suggestions=CONSTRAINED))
        (move,) = [t for t in run.transcript.tools if t["function"]["name"] == "move_module"]
        first, second = move["function"]["parameters"]["enum"]
        assert first["source"] == second["source"], "two destinations proposed for one module"
        run.step(ToolCall("move_module", dict(first)))
        assert run.execution.macro_log[-1].failure_class is None
        assert [t["function"]["name"] for t in run.transcript.tools] == [FINISH], "the module is gone from its source"
