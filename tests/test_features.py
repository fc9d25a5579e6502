from __future__ import annotations

import dataclasses
import inspect

import pytest
from test_registry import clone

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.macros.suggestions import ApplicabilityError
from pytest_granularity.routing.applicability import applicable_macros
from pytest_granularity.routing.features import Features, compute
from pytest_granularity.routing.routers import features_of

FILES = {
    "pkg/__init__.py": b"",
    "pkg/core.py": b"import os\nfrom pkg import util\n\n\ndef f(x):\n    if x:\n        return [i for i in x]\n",
    "pkg/util.py": b"VALUE = 1\n",
    "pkg/user.py": b"from .core import f\n",
    "app.py": b"import pkg.core\n",
    "README.md": b"hello\n",
}


def test_each_feature_by_hand():
    prompt = "Move pkg/core.py into pkg/sub/ and fix the `f` helper; see README.md and DEFAULT_LIMIT in pkg.util."
    f = compute(prompt, FILES)
    assert f.file_paths == 3  # pkg/core.py, pkg/sub/, README.md
    assert f.python_files == 1 and f.non_python_files == 2
    assert f.entities == 6  # f, pkg/core.py, pkg/sub, README.md, pkg.util, DEFAULT_LIMIT
    assert f.imports == 2  # the targets are pkg/core.py (two imports) and pkg.util (none)
    assert f.cross_file_deps == 2  # pkg/user.py and app.py import pkg.core (pkg/core.py imports util but is a target)
    assert f.ast_depth > 5 and f.ast_nodes > 20
    assert f.is_text_task == 1 and f.is_refactor_task == 1


def test_a_plain_fix_has_no_text_or_refactor_flag():
    f = compute("The `VALUE` constant in pkg/util.py is wrong; it must be 2.", FILES)
    assert (f.file_paths, f.python_files, f.is_text_task, f.is_refactor_task) == (1, 1, 0, 0)
    assert f.cross_file_deps == 1  # pkg/core.py imports util through `from pkg import util`


def test_features_take_only_the_prompt_the_initial_files_and_the_registry():
    assert list(inspect.signature(compute).parameters) == ["prompt", "files", "macros", "hidden"]
    assert len(Features.names()) == 12


def test_hidden_inputs_do_not_change_the_features(fix_add, data_copy):
    fix_add = dataclasses.replace(
        fix_add, prompt="`add` in calc/ops.py multiplies by `SCALE`, which is 2; it must be 1."
    )
    hidden = dataclasses.replace(
        fix_add,
        family="refactor",
        fit="none",
        macro=None,
        solution_overlay=data_copy / "minipkg",
        solution_delete=("calc/ops.py",),
        verifier_tests=data_copy / "minipkg" / "tests",
    )
    macros = MacroRegistry.load()
    with Workspace.for_task(fix_add) as one, Workspace.for_task(hidden) as two:
        seen = features_of(fix_add, one, macros)
        assert seen == features_of(hidden, two, macros)
    assert seen.applicable_macros == 1 and seen.retrieval_score > 0  # replace_and_verify: SCALE = 2 -> SCALE = 1


SNOOPING = {
    "the verifier": "(Path(files_root) / 'verifier' / 'test_verify_fix_add.py').read_text()",
    "the task file": "(Path(files_root) / 'task.yaml').read_text()",
    "the solution": "(Path(files_root) / 'solution' / 'calc' / 'ops.py').read_text()",
    "a file outside": "(Path(outside) / 'planted.txt').write_text('x')",
    "a process": "__import__('subprocess').run(['true'])",
}


@pytest.mark.parametrize("attempt", sorted(SNOOPING))
def test_an_applicability_check_can_neither_peek_nor_write(fix_add, tmp_path, attempt):
    code = (
        SNOOPING[attempt].replace("files_root", repr(str(fix_add.path.parent))).replace("outside", repr(str(tmp_path)))
    )
    runtime = f"\n\ndef derive_arguments(prompt, files):\n    from pathlib import Path\n    {code}\n    return []\n"
    clone(
        tmp_path / "lib",
        "snoop",
        "applicability:\n  derive: runtime:derive_arguments\n  description: peeks\n",
        lambda t: t + runtime,
    )
    macros = MacroRegistry.load([tmp_path / "lib"])
    with (
        Workspace.for_task(fix_add) as ws,
        pytest.raises(ApplicabilityError, match=r"field 'applicability\.derive'.*snoop.*PermissionError"),
    ):
        features_of(fix_add, ws, macros)
    assert not (tmp_path / "planted.txt").exists()


def test_the_builtin_checks_say_which_macro_applies():
    macros = MacroRegistry.load()
    files = {**FILES, "README.md": b"see pkg.util\n"}
    assert applicable_macros("Move pkg/core.py to pkg/sub/core.py and update the imports.", FILES, macros) == [
        "move_module"
    ]
    assert (
        applicable_macros("Move pkg/util.py to pkg/sub/util.py and update the imports.", files, macros) == []
    )  # README names it
    assert applicable_macros("Summarise the API of pkg/core.py in docs/core.md.", FILES, macros) == ["summarize_module"]
    assert applicable_macros("Add a feature to pkg/core.py.", FILES, macros) == []


def test_the_interrupt_handler_may_still_clean_up_during_a_check(monkeypatch):
    from pytest_granularity.macros import suggestions as applicability
    from pytest_granularity.process import interrupts

    seen = []
    monkeypatch.setattr(interrupts, "cleanup", lambda: seen.append(applicability._audit("os.kill", (1, 0))))
    monkeypatch.setattr(interrupts, "_previous", {2: lambda signum, frame: None})
    with applicability.read_only():
        interrupts._handle(2, None)
        with pytest.raises(PermissionError):
            applicability._audit("os.kill", (1, 0))
    assert seen == [None]
