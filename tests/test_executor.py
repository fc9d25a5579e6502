from __future__ import annotations

import json
import shutil

import pytest
from macro_helpers import call, workspace

from pytest_granularity import MacroContext
from pytest_granularity.agents import ContextLengthExceeded, InfrastructureError
from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.core.failures import InjectedFault
from pytest_granularity.core.result import MacroLogEntry, RunResult
from pytest_granularity.core.transcript import ToolCall
from pytest_granularity.macros import MacroRegistry, invoke, load_macro
from pytest_granularity.macros.registry import BUILTIN_FOLDER
from pytest_granularity.run.executor import (
    TRANSITIONS,
    AgentRaised,
    ContextLengthExhausted,
    Finished,
    InfrastructureFailed,
    Limits,
    Machine,
    MacroFailureNotRecovered,
    State,
    StepLimitReached,
    TokenLimitReached,
    transition_table,
)
from pytest_granularity.run.policies import FIXED_POLICIES, never
from pytest_granularity.run.runner import RunSettings, run_task

SETTINGS = RunSettings(agent=ReferenceAgent)


def faulty(point):
    def fault_point(name, macro, args, root):
        if name == point:
            raise InjectedFault(f"injected {point} fault in {macro}")

    return fault_point


def test_the_transition_table_is_one_way():
    assert (State.DEGRADE, "switch_to_micro") in TRANSITIONS
    assert not [k for k, target in TRANSITIONS.items() if k[0] is State.MICRO and target is State.MACRO]
    assert "degrade   --switch_to_micro--> micro" in transition_table()


def test_an_impossible_event_is_refused():
    machine = Machine()
    machine.fire("micro")
    with pytest.raises(RuntimeError, match="no transition from micro on degrade"):
        machine.fire("degrade")


def test_micro_run(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["micro"], "none", SETTINGS)
    assert (
        result.success
        and result.macro_calls == 0
        and result.transitions == ["route --micro--> micro", "micro --finish--> verify"]
    )


def test_macro_run_that_fits(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["macro"], "none", SETTINGS)
    assert result.success and result.steps == 1 and result.macro_calls == 1 and result.failure_class is None
    assert result.tokens < run_task(fix_add, FIXED_POLICIES["micro"], "none", SETTINGS).tokens


def test_early_fault_macro_fails_and_hybrid_recovers(fix_add):
    macro = run_task(fix_add, FIXED_POLICIES["macro"], "early", SETTINGS, faulty("early"))
    assert not macro.success and macro.failure_class == "executor_exception" and not macro.modified
    assert macro.stop_reason == "macro_failed" and not macro.degraded
    hybrid = run_task(fix_add, FIXED_POLICIES["hybrid"], "early", SETTINGS, faulty("early"))
    assert hybrid.success and hybrid.degraded and hybrid.failure_class == "executor_exception"
    assert "decide --degrade--> degrade" in hybrid.transitions
    assert "Macro skills are no longer available" in hybrid.transcript[4]["content"]


def test_late_fault_no_recovery_succeeds_and_always_degrade_costs_more(fix_add):
    no_recovery = run_task(fix_add, FIXED_POLICIES["macro"], "late", SETTINGS, faulty("late"))
    degrade = run_task(fix_add, FIXED_POLICIES["hybrid"], "late", SETTINGS, faulty("late"))
    micro = run_task(fix_add, FIXED_POLICIES["micro"], "none", SETTINGS)
    assert no_recovery.success and not no_recovery.degraded and no_recovery.modified == ["calc/ops.py"]
    assert degrade.success and degrade.degraded
    assert no_recovery.tokens < degrade.tokens < micro.tokens


def test_a_recovery_policy_of_never_stops_hybrid(fix_add):
    import dataclasses

    stopped = run_task(
        fix_add, dataclasses.replace(FIXED_POLICIES["hybrid"], recover=never), "early", SETTINGS, faulty("early")
    )
    assert not stopped.success and "decide --stop--> verify" in stopped.transitions


def test_the_same_run_gives_the_same_numbers(fix_add):
    first = run_task(fix_add, FIXED_POLICIES["hybrid"], "late", SETTINGS, faulty("late"))
    second = run_task(fix_add, FIXED_POLICIES["hybrid"], "late", SETTINGS, faulty("late"))
    assert (first.tokens, first.steps, first.transitions) == (second.tokens, second.steps, second.transitions)


def test_a_macro_not_offered_in_micro_mode_is_refused(fix_add):
    from pytest_granularity.core.transcript import ToolCall
    from pytest_granularity.core.workspace import Workspace
    from pytest_granularity.process.tool_context import ToolContext
    from pytest_granularity.run.executor import Limits, execute

    class Sneaky:
        def __init__(self):
            self.calls = iter(
                [
                    ToolCall("replace_and_verify", {"files": ["calc/ops.py"], "old": "SCALE = 2", "new": "SCALE = 1"}),
                    ToolCall("finish"),
                ]
            )

        def next_call(self, messages, tools):
            return next(self.calls)

    with Workspace.for_task(fix_add) as ws:
        execution = execute(
            fix_add, FIXED_POLICIES["micro"], Sneaky(), ToolContext(ws), MacroRegistry.load(), Limits(5)
        )
        assert "not available" in execution.transcript.messages[3].content and not ws.changes()


def test_writes_outside_the_declared_side_effects_are_recorded(tmp_path):
    folder = tmp_path / "macros" / "replace-and-verify"
    shutil.copytree(BUILTIN_FOLDER / "replace-and-verify", folder)
    runtime = folder / "runtime.py"
    runtime.write_text(
        runtime.read_text().replace(
            '    return f"replaced the text',
            '    (ctx.root / "undeclared.txt").write_text("x")\n    return f"replaced the text',
        )
    )
    macro = load_macro(folder)
    ws = workspace(tmp_path / "ws", {"a.py": "x = 1\n"})
    outcome = invoke(macro, MacroContext(ws, {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}))
    assert outcome.ok
    assert outcome.violations == ("replace_and_verify created undeclared.txt, which its contract does not allow",)


def test_a_macro_that_raises_is_an_executor_exception_with_its_changes(tmp_path):
    ws = workspace(tmp_path, {"a.py": "x = 1\n"})

    def boom(name, macro, args, root):
        if name == "late":
            raise RuntimeError("disk on fire")

    outcome = call(ws, "replace_and_verify", fault=boom, files=["a.py"], old="x = 1", new="x = 2")
    assert outcome.failure_class == "executor_exception" and "disk on fire" in outcome.reason
    assert outcome.changes.modified == ("a.py",)


def _without_macro(task):
    import dataclasses

    return dataclasses.replace(task, macro=None)


def test_no_applicable_macro_is_an_observed_precondition_mismatch(fix_add):
    task = _without_macro(fix_add)
    stopped = run_task(task, FIXED_POLICIES["macro"], "none", SETTINGS)
    assert (
        not stopped.success
        and stopped.failure_class == "precondition_mismatch"
        and stopped.stop_reason == "macro_failed"
    )
    assert stopped.transitions == [
        "route --macro--> macro",
        "macro --no_macro_applies--> classify",
        "classify --failure_classified(precondition_mismatch)--> decide",
        "decide --stop--> verify",
    ]
    hybrid = run_task(task, FIXED_POLICIES["hybrid"], "none", SETTINGS)
    assert hybrid.success and hybrid.degraded and hybrid.failure_class == "precondition_mismatch"
    assert hybrid.transitions[-3:] == [
        "decide --degrade--> degrade",
        "degrade --switch_to_micro--> micro",
        "micro --finish--> verify",
    ]
    answer = hybrid.transcript[3]
    assert (
        answer["role"] == "tool" and answer["tool_call_id"] == "call_1" and "no applicable macro" in answer["content"]
    ), "the note answers the finish call"


def test_degrading_from_an_untouched_workspace_pays_for_a_whole_micro_run(fix_add):
    task = _without_macro(fix_add)
    micro = run_task(task, FIXED_POLICIES["micro"], "none", SETTINGS)
    hybrid = run_task(task, FIXED_POLICIES["hybrid"], "none", SETTINGS)
    names = [c["function"]["name"] for m in hybrid.transcript for c in m.get("tool_calls") or []]
    assert names == ["finish", "list_files", "search", "read_file", "edit_file", "run_tests", "finish"]
    assert hybrid.steps == micro.steps and hybrid.tokens > micro.tokens


def test_a_successful_macro_then_finish_is_no_failure(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["hybrid"], "none", SETTINGS)
    assert result.success and not result.degraded and result.failure_class is None


def test_recovery_reads_a_file_the_macro_did_not_touch_before_editing_it(fix_add):
    hybrid = run_task(fix_add, FIXED_POLICIES["hybrid"], "early", SETTINGS, faulty("early"))
    names = [c["function"]["name"] for m in hybrid.transcript for c in m.get("tool_calls") or []]
    assert names == ["replace_and_verify", "show_diff", "read_file", "edit_file", "run_tests", "finish"]


class Scripted:
    """An agent that plays a fixed list of answers; an exception in the list is raised instead."""

    def __init__(self, *answers):
        self.answers = iter(answers)

    def next_call(self, messages, tools):
        answer = next(self.answers)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _executed(task, agent, limits, policy="micro"):
    """Run ``agent`` with a verifier that records its calls and writes into the workspace it judges."""
    from pytest_granularity.core.workspace import Workspace
    from pytest_granularity.process.tool_context import ToolContext
    from pytest_granularity.run.executor import execute
    from pytest_granularity.verifier.verify import Verdict

    verified = []
    with Workspace.for_task(task) as ws:

        def verifier():
            verified.append(ws.changes())
            (ws.root / "verifier_was_here.txt").write_text("x")
            return Verdict(True, "judged")

        execution = execute(
            task, FIXED_POLICIES[policy], agent, ToolContext(ws), MacroRegistry.load(), limits, verifier=verifier
        )
    return execution, verified


@pytest.mark.parametrize(
    ("answers", "limits", "ending", "reason", "detail", "last_transition"),
    [
        pytest.param(
            [ToolCall("finish")], Limits(5), Finished, "finished", None, "micro --finish--> verify", id="finish"
        ),
        pytest.param(
            [ToolCall("list_files")] * 3,
            Limits(2),
            StepLimitReached,
            "step_limit",
            None,
            "micro --step_limit--> stopped",
            id="step-limit",
        ),
        pytest.param(
            [ToolCall("list_files")],
            Limits(5, max_tokens=10),
            TokenLimitReached,
            "token_limit",
            "spent more than 10 tokens",
            "micro --agent_stopped(token_limit)--> stopped",
            id="token-limit",
        ),
        pytest.param(
            [ContextLengthExceeded("too long")],
            Limits(5),
            ContextLengthExhausted,
            "context_length",
            "too long",
            "micro --agent_stopped(context_length)--> stopped",
            id="context-length",
        ),
        pytest.param(
            [InfrastructureError("HTTP 503")],
            Limits(5),
            InfrastructureFailed,
            "infrastructure",
            "HTTP 503",
            "micro --agent_stopped(infrastructure)--> stopped",
            id="infrastructure",
        ),
        pytest.param(
            [ValueError("bad")],
            Limits(5),
            AgentRaised,
            "agent_exception",
            "the agent raised ValueError: bad",
            "micro --agent_stopped(agent_exception)--> stopped",
            id="agent-exception",
        ),
    ],
)
def test_every_ending_is_recorded_as_its_own_outcome(fix_add, answers, limits, ending, reason, detail, last_transition):
    execution, verified = _executed(fix_add, Scripted(*answers), limits)
    assert type(execution.ending) is ending
    assert (execution.stop_reason, execution.error) == (reason, detail)
    assert execution.transitions[-1] == last_transition
    judged_in_verify = last_transition.endswith("--> verify")
    assert (execution.verdict is not None) == judged_in_verify == bool(verified)


def test_a_macro_failure_without_recovery_is_judged_in_the_verify_state(fix_add):
    execution, verified = _executed(_without_macro(fix_add), Scripted(ToolCall("finish")), Limits(5), "macro")
    assert type(execution.ending) is MacroFailureNotRecovered and execution.stop_reason == "macro_failed"
    assert execution.transitions[-1] == "decide --stop--> verify" and execution.verdict is not None
    assert len(verified) == 1


def test_what_a_run_changed_is_taken_before_the_verifier_touches_the_workspace(fix_add):
    edit = ToolCall("edit_file", {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"})
    execution, verified = _executed(fix_add, Scripted(edit, ToolCall("finish")), Limits(5))
    assert verified == [execution.changes] and execution.changes.paths == ("calc/ops.py",)
    assert "verifier_was_here" not in execution.diff and "SCALE = 1" in execution.diff


def test_a_run_ended_from_outside_the_machine_fires_no_transition(fix_add):
    from pytest_granularity.core.workspace import Workspace
    from pytest_granularity.process.tool_context import ToolContext
    from pytest_granularity.run.executor import Run, RunEnded

    class Abandoned(RunEnded):
        reason = "abandoned"
        event = None

    with Workspace.for_task(fix_add) as ws:
        run = Run.start(fix_add, FIXED_POLICIES["micro"], ToolContext(ws), MacroRegistry.load(), Limits(5))
        run.end(Abandoned())
    assert run.ended and run.execution.stop_reason == "abandoned" and run.execution.verdict is None
    assert run.execution.transitions == ["route --micro--> micro"] and run.machine.state is State.MICRO


def test_the_macro_log_serialises_as_plain_json_in_field_order(fix_add):
    result = run_task(fix_add, FIXED_POLICIES["macro"], "none", SETTINGS)
    (entry,) = result.macro_log
    assert isinstance(entry, MacroLogEntry) and (entry.macro, entry.failure_class) == ("replace_and_verify", None)
    data = json.loads(json.dumps(result.to_dict()))
    assert list(data["macro_log"][0]) == ["macro", "failure_class", "seconds"]
    assert RunResult.from_dict(data) == result
