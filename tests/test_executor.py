from __future__ import annotations

import shutil

import pytest
from macro_helpers import call, workspace

from pytest_granularity.agents.reference import ReferenceAgent
from pytest_granularity.executor import TRANSITIONS, Machine, State, transition_table
from pytest_granularity.failures import InjectedFault
from pytest_granularity.macros import MacroRegistry, invoke, load_macro
from pytest_granularity.macros.registry import BUILTIN_FOLDER
from pytest_granularity.macros.runtime import MacroContext
from pytest_granularity.policies import FIXED_POLICIES, never
from pytest_granularity.runner import RunSettings, run_task

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
    from pytest_granularity.executor import Limits, execute
    from pytest_granularity.tools import ToolContext
    from pytest_granularity.transcript import ToolCall
    from pytest_granularity.workspace import Workspace

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
