"""Each private internal the package uses has a slow path that gives the same results where it is missing."""

from __future__ import annotations

import _pytest.config
import numpy
from test_pytest_server import fresh_memo, kept, stop_servers, workspace  # noqa: F401  (fresh_memo: autouse)

from pytest_granularity import compat
from pytest_granularity.gate import metrics
from pytest_granularity.process import pytest_server, rewrite_cache
from pytest_granularity.process.pytest_process import run_pytest
from pytest_granularity.process.sandbox import NO_SANDBOX


def test_bootstrap_draws_are_the_same_without_cpythons_twister_state(monkeypatch):
    fast = metrics._draws("a seed", 7)
    monkeypatch.setattr(metrics, "twister_words", lambda generator: None)
    slow = metrics._draws("a seed", 7)
    assert slow.shape == fast.shape == (metrics.RESAMPLES, 7) and numpy.array_equal(slow, fast)


def test_twister_words_refuses_a_state_of_another_shape():
    class Other:
        def getstate(self):
            return (2, (1, 2, 3), None)

    assert compat.twister_words(Other()) is None  # type: ignore[arg-type]
    assert compat.twister_words(__import__("random").Random(1)) is not None


def test_without_a_way_to_end_a_child_as_the_interpreter_does_every_run_is_cold(tmp_path, monkeypatch):
    root = workspace(tmp_path, {"test_quick.py": "def test_quick():\n    pass\n"})
    monkeypatch.setattr(pytest_server, "can_finish_like_an_interpreter", lambda: False)
    assert run_pytest(root, ["test_quick.py"], 60).passed
    assert kept(NO_SANDBOX) == [], "no server started"


def test_without_pytests_rewriting_internals_the_cache_keeps_and_patches_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(rewrite_cache, "assertion_rewrite", lambda: None)
    path = tmp_path / "test_a.py"
    path.write_text("def test_one():\n    assert 1 == 2\n")
    cache = rewrite_cache.RewriteCache()
    assert cache.first is None and rewrite_cache._rewritten(str(path), path.read_bytes()) is None
    before = _pytest.assertion.rewrite._rewrite_test
    cache.install([])
    assert _pytest.assertion.rewrite._rewrite_test is before


def test_without_pytests_plugin_list_a_server_still_starts(monkeypatch):
    monkeypatch.delattr(_pytest.config, "default_plugins")
    compat.import_pytest_plugins()
    assert compat.can_finish_like_an_interpreter()
