from __future__ import annotations

import pytest
from macro_helpers import call, workspace

FILES = {
    "app/settings.py": "LIMIT = 10\nNAME = 'x'\n",
    "app/other.py": "LIMIT = 10\n",
    "tests/test_app.py": "from app.settings import LIMIT\n\ndef test_limit():\n    assert LIMIT == 5\n",
}


def test_replaces_in_every_file_and_validates_with_the_tests(tmp_path):
    ws = workspace(tmp_path, FILES)
    outcome = call(
        ws, "replace_and_verify", files=["app/settings.py", "app/other.py"], old="LIMIT = 10", new="LIMIT = 5"
    )
    assert outcome.ok, outcome.reason
    assert outcome.changes.modified == ("app/other.py", "app/settings.py")
    assert not outcome.violations


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"files": ["app/settings.py"], "old": "LIMIT = 99", "new": "x"}, "occurs 0 times in app/settings.py"),
        ({"files": ["app/settings.py"], "old": "'", "new": '"'}, "occurs 2 times"),
        ({"files": ["app/nope.py"], "old": "LIMIT", "new": "x"}, "app/nope.py does not exist"),
        ({"files": ["app/settings.py", "app/other.py"], "old": "NAME", "new": "x"}, "occurs 0 times in app/other.py"),
        ({"files": ["../escape.py"], "old": "x", "new": "y"}, "would leave the workspace"),
    ],
    ids=["absent", "ambiguous", "missing-file", "absent-in-second-file", "escape"],
)
def test_precondition_failures_write_nothing(tmp_path, args, words):
    ws = workspace(tmp_path, FILES)
    outcome = call(ws, "replace_and_verify", **args)
    assert outcome.failure_class == "precondition_mismatch" and words in outcome.reason
    assert not ws.changes()


def test_a_syntax_error_is_a_validation_failure(tmp_path):
    ws = workspace(tmp_path, FILES)
    outcome = call(ws, "replace_and_verify", files=["app/settings.py"], old="LIMIT = 10", new="LIMIT = (")
    assert outcome.failure_class == "validation_failure" and "no longer parses" in outcome.reason
    assert outcome.changes.modified == ("app/settings.py",)


def test_failing_tests_are_a_validation_failure(tmp_path):
    ws = workspace(tmp_path, FILES)
    outcome = call(ws, "replace_and_verify", files=["app/settings.py"], old="LIMIT = 10", new="LIMIT = 6")
    assert outcome.failure_class == "validation_failure" and "tests failed" in outcome.reason


def test_bad_arguments_are_a_protocol_failure(tmp_path):
    ws = workspace(tmp_path, FILES)
    outcome = call(ws, "replace_and_verify", files=[], old="x", new="y")
    assert outcome.failure_class == "protocol_failure" and "files" in outcome.reason
