from __future__ import annotations

import dataclasses
import inspect

from pytest_granularity.features import Features, compute
from pytest_granularity.routing import features_of
from pytest_granularity.workspace import Workspace

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


def test_features_take_only_the_prompt_and_the_initial_files():
    assert list(inspect.signature(compute).parameters) == ["prompt", "files"]
    assert len(Features.names()) == 10


def test_hidden_inputs_do_not_change_the_features(fix_add, data_copy):
    hidden = dataclasses.replace(
        fix_add,
        family="refactor",
        fit="none",
        macro=None,
        solution_overlay=data_copy / "minipkg",
        solution_delete=("calc/ops.py",),
        verifier_tests=data_copy / "minipkg" / "tests",
    )
    with Workspace.for_task(fix_add) as one, Workspace.for_task(hidden) as two:
        assert features_of(fix_add, one) == features_of(hidden, two)
