"""The registry at scale: health, circuit breaker, dependencies, retrieval, fallbacks, timeouts."""

from __future__ import annotations

import os
import shutil
import time
import uuid

import pytest
from macro_helpers import workspace

from pytest_granularity.core.schemas import DefinitionError
from pytest_granularity.macros import MacroContext, MacroRegistry, invoke, load_macro
from pytest_granularity.macros.registry import BUILTIN_FOLDER
from pytest_granularity.run.contract_checks import _outlived

REPLACE = BUILTIN_FOLDER / "replace-and-verify"


def clone(root, name, contract_extra="", runtime_edit=None, fallback=None):
    """A copy of replace_and_verify under another name, with contract lines added."""
    folder = root / name
    shutil.copytree(REPLACE, folder, ignore=shutil.ignore_patterns("examples", "__pycache__"))
    snake = name.replace("-", "_")
    skill = folder / "SKILL.md"
    skill.write_text(skill.read_text().replace("name: replace-and-verify", f"name: {name}"))
    contract = folder / "contract.yaml"
    text = contract.read_text().replace("name: replace_and_verify", f"name: {snake}")
    text = text.replace("fallback_skill: null", f"fallback_skill: {fallback}" if fallback else "fallback_skill: null")
    text = text.split("examples:")[0] + contract_extra
    contract.write_text(text)
    if runtime_edit:
        runtime = folder / "runtime.py"
        runtime.write_text(runtime_edit(runtime.read_text()))
    return folder


def test_a_macro_with_missing_needs_is_disabled_and_comes_back(tmp_path):
    folder = clone(tmp_path / "lib", "needy", "needs:\n  - file: token.txt\n  - module: json\n")
    registry = MacroRegistry.load([tmp_path / "lib"])
    assert registry.unavailable("needy") == f"needs the file {folder / 'token.txt'}"
    assert "needy" not in [m.name for m in registry.available()] and "needy" in registry
    (folder / "token.txt").write_text("now here")
    assert registry.unavailable("needy") is None, "re-checked without a restart"
    clone(tmp_path / "lib2", "exotic", "needs:\n  - module: no_such_module_xyz\n  - executable: no-such-binary-xyz\n")
    assert (
        MacroRegistry.load([tmp_path / "lib2"]).unavailable("exotic") == "needs the Python module 'no_such_module_xyz'"
    )


def test_the_breaker_opens_at_exactly_n_consecutive_malfunctions():
    registry = MacroRegistry.load(breaker=3)
    for _ in range(2):
        registry.record("move_module", "executor_exception")
    registry.record("move_module", "precondition_mismatch")
    registry.record("move_module", "executor_exception", injected=True)
    assert registry.unavailable("move_module") is None, "refusals and injected faults are not malfunctions"
    registry.record("move_module", "partial_side_effect")
    assert registry.unavailable("move_module") == "circuit breaker open after 3 consecutive failures"
    registry.record("replace_and_verify", "executor_exception")
    registry.record("replace_and_verify", None)
    registry.record("replace_and_verify", "executor_exception")
    registry.record("replace_and_verify", "executor_exception")
    assert registry.unavailable("replace_and_verify") is None, "a success resets the count"


def test_dependencies_are_ordered_and_checked(tmp_path):
    clone(tmp_path / "ok", "base-step")
    clone(tmp_path / "ok", "composed", "depends_on: [base_step]\n")
    registry = MacroRegistry.load([tmp_path / "ok"], builtin=False)
    assert registry.names.index("base_step") < registry.names.index("composed")
    clone(tmp_path / "missing", "orphan", "depends_on: [nowhere]\n")
    with pytest.raises(DefinitionError, match="'orphan' depends on nowhere, which no registered macro provides"):
        MacroRegistry.load([tmp_path / "missing"], builtin=False)
    clone(tmp_path / "cycle", "ping", "depends_on: [pong]\n")
    clone(tmp_path / "cycle", "pong", "depends_on: [ping]\n")
    with pytest.raises(DefinitionError, match=r"dependency cycle: (ping -> pong -> ping|pong -> ping -> pong)"):
        MacroRegistry.load([tmp_path / "cycle"], builtin=False)


def test_a_macro_composes_its_dependency(tmp_path):
    clone(tmp_path / "lib", "base-step")
    folder = clone(
        tmp_path / "lib",
        "composed",
        "depends_on: [base_step]\n",
        runtime_edit=lambda t: t.replace(
            "def run(ctx: MacroContext) -> str:\n",
            "def run(ctx: MacroContext) -> str:\n    return ctx.call_dependency('base_step', ctx.args)\n",
        ),
    )
    registry = MacroRegistry.load([tmp_path / "lib"], builtin=False)
    ws = workspace(tmp_path / "ws", {"a.py": "x = 1\n"})
    macro = registry.get("composed")
    context = MacroContext(
        ws, {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}, dependencies={"base_step": registry.get("base_step")}
    )
    assert invoke(macro, context).ok and (tmp_path / "ws" / "a.py").read_text() == "x = 2\n"
    assert folder.exists()


def test_a_timeout_stops_the_macro_and_leaves_no_process(tmp_path):
    token = f"granularity-test-{uuid.uuid4().hex}"
    folder = clone(
        tmp_path / "lib",
        "sleepy",
        runtime_edit=lambda t: t.replace(
            "def run(ctx: MacroContext) -> str:\n",
            "def run(ctx: MacroContext) -> str:\n    import subprocess, sys\n"
            f"    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {token!r}])\n"
            "    (ctx.root / 'started').write_text('yes')\n    child.wait()\n",
        ),
    )
    contract = folder / "contract.yaml"
    contract.write_text(contract.read_text().replace("timeout_seconds: 120", "timeout_seconds: 1"))
    ws = workspace(tmp_path / "ws", {"a.py": "x = 1\n"})
    started = time.monotonic()
    outcome = invoke(load_macro(folder), MacroContext(ws, {"files": ["a.py"], "old": "x = 1", "new": "x = 2"}))
    assert outcome.failure_class == "executor_exception" and "timeout of 1s" in outcome.reason
    assert time.monotonic() - started < 10
    assert (ws.root / "started").exists() and not _outlived(token)
    assert os.path.exists(tmp_path / "ws" / "a.py")


def test_retrieval_offers_the_top_k_for_the_task():
    registry = MacroRegistry.load()
    assert "replace_and_verify" in [m.name for m in registry.offer("Move a module", 2)], "pinned: always one of the k"
    assert len(registry.offer("anything", 5)) == 3, "with no more than k macros, all are offered"
    assert len(registry.offer("anything", 0)) == 3, "k = 0 turns retrieval off"


def test_macros_that_suggest_a_call_rank_ahead_of_those_that_only_share_words():
    from conftest import REPO

    registry = MacroRegistry.load([REPO / "examples" / "macros"])
    query = "Move textkit/stemmer.py to textkit/analysis/stemmer.py"
    by_words = [m.name for m in registry.offer(query, 2)]
    assert "move_module" not in by_words, "a library where words alone crowd the macro out"
    offered = [m.name for m in registry.offer(query, 2, suggesting=["move_module"])]
    assert offered == ["move_module", "replace_and_verify"], "k is kept, the pinned macro too"


def test_a_failed_macro_tries_its_fallback_skill_once(tmp_path, fix_add):
    import dataclasses

    from pytest_granularity.agents.reference import ReferenceAgent
    from pytest_granularity.core.tasks import MacroCall
    from pytest_granularity.run.policies import FIXED_POLICIES
    from pytest_granularity.run.runner import RunSettings, run_task

    clone(
        tmp_path / "lib",
        "broken-replace",
        fallback="replace_and_verify",
        runtime_edit=lambda t: t.replace(
            "def run(ctx: MacroContext) -> str:\n",
            "def run(ctx: MacroContext) -> str:\n    raise RuntimeError('broken')\n",
        ),
    )
    registry = MacroRegistry.load([tmp_path / "lib"])
    task = dataclasses.replace(fix_add, macro=MacroCall("broken_replace", fix_add.macro.args))
    result = run_task(task, FIXED_POLICIES["macro"], "none", RunSettings(agent=ReferenceAgent, macros=registry))
    assert result.success and result.macro_calls == 2 and result.steps == 1
    assert "macro --fallback_skill(replace_and_verify)--> macro" in result.transitions
    assert [c.macro for c in result.macro_log] == ["broken_replace", "replace_and_verify"]


def test_retrieval_finds_each_benchmark_tasks_macro_in_a_library_of_thirty():
    from conftest import REPO

    from pytest_granularity.core.tasks import find_task_files, load_task

    registry = MacroRegistry.load([REPO / "examples" / "macros"])
    assert len(registry) >= 30
    tasks = [t for t in (load_task(p) for p in find_task_files([REPO / "benchmark_tasks"])) if t.macro]
    missed = [t.id for t in tasks if t.macro.skill not in [m.name for m in registry.offer(t.prompt, 5)]]
    assert missed == []
    assert all(len(registry.offer(t.prompt, 5)) == 5 for t in tasks)
    assert "replace_and_verify" in [m.name for m in registry.offer("an unrelated prompt", 5)], (
        "a pinned macro is always offered"
    )
