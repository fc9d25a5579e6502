"""What a test run prints reads the same under pytest 8.4.2, 9.0.3 and 9.2.0 (``process.test_output``).

``tests/data/pytest_wording/pytest-<version>.txt`` is the output of one probe project
(``tests/data/pytest_wording/probe``: the failures an agent meets, and a pytest run nested in a
test's assertion message) as ``run_pytest`` returned it before the wording was normalised, under
each pytest. To capture it again, with that pytest installed in a folder of its own
(``pip install --no-deps --target DIR pytest==X``), from the repository's root::

    PYTHONPATH=DIR python -c "import pathlib; from pytest_granularity.process import pytest_process as p; \\
        p.normalise_wording = str; \\
        print(p.run_pytest(pathlib.Path('tests/data/pytest_wording/probe'), ['tests/test_probe.py'], 120).output, end='')"
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from pytest_granularity.process.pytest_process import run_pytest
from pytest_granularity.process.test_output import REFERENCE, normalise_wording

DATA = Path(__file__).parent / "data" / "pytest_wording"


def output(version: str, name: str = "pytest") -> str:
    return (DATA / f"{name}-{version}.txt").read_text(encoding="utf-8")


def differing(text: str, reference: str) -> list[str]:
    """The lines that differ, ``-`` for ``text``'s and ``+`` for ``reference``'s."""
    diff = difflib.unified_diff(text.split("\n"), reference.split("\n"), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("---", "+++")]


NOT_MAPPED_SINCE_9_0 = [
    # dict order in a repr: sorted before 9.1, as inserted since; the truncated repr lost the rest
    "-E   AssertionError: assert {'alpha': 2, ...3], 'zeta': 1} == {'alpha': 3, ...4], 'zeta': 1}",
    "+E   AssertionError: assert {'zeta': 1, '...d': [1, 2, 3]} == {'zeta': 1, '...d': [1, 2, 4]}",
    "-E   AssertionError: assert {'key01': 'vv...vvvvvvv', ...} == {'key01': 'vv...vvvvvvv', ...}",
    "+E   AssertionError: assert {'key20': 'vv...vvvvvvv', ...} == {'key20': 'vv...vvvvvvv', ...}",
    "-E   assert not {'a': 2, 'b': 1}",
    "+E   assert not {'b': 1, 'a': 2}",
    # a failed pytest.warns(match=...): 9.1 counts the warnings emitted
    "-E   Failed: DID NOT WARN. No warnings of type (<class 'UserWarning'>,) matching the regex were emitted.",
    "-E    Regex: other",
    "+E   Failed: Regex pattern did not match any of the 1 warnings emitted.",
    "+E    Regex: 'other'",
    # the nested run's dict
    "-E     E       AssertionError: assert {'a': 2, 'b': 1} == {'a': 3, 'b': 1}",
    "+E     E       AssertionError: assert {'b': 1, 'a': 2} == {'b': 1, 'a': 3}",
    "-E     FAILED test_inner.py::test_inner_dict - AssertionError: assert {'a': 2, 'b': ...",
    "+E     FAILED test_inner.py::test_inner_dict - AssertionError: assert {'b': 1, 'a': ...",
    "-FAILED tests/test_probe.py::test_dict_eq - AssertionError: assert {'alpha': 2...",
    "-FAILED tests/test_probe.py::test_dict_eq_long - AssertionError: assert {'key0...",
    "+FAILED tests/test_probe.py::test_dict_eq - AssertionError: assert {'zeta': 1,...",
    "+FAILED tests/test_probe.py::test_dict_eq_long - AssertionError: assert {'key2...",
    "-FAILED tests/test_probe.py::test_warns_match - Failed: DID NOT WARN. No warni...",
    "+FAILED tests/test_probe.py::test_warns_match - Failed: Regex pattern did not ...",
]


def test_the_reference_pytest_output_passes_unchanged():
    assert REFERENCE == "9.2.0"
    assert normalise_wording(output("9.2.0")) == output("9.2.0")


def test_pytest_9_0_3_reads_as_9_2_0_but_for_what_its_text_lacks():
    before = differing(output("9.0.3"), output("9.2.0"))
    after = differing(normalise_wording(output("9.0.3")), output("9.2.0"))
    assert sorted(after) == sorted(NOT_MAPPED_SINCE_9_0)
    assert len(before) > 5 * len(after)


def test_pytest_8_4_2_reads_as_9_2_0_but_for_what_its_text_lacks():
    after = differing(normalise_wording(output("8.4.2")), output("9.2.0"))
    not_mapped_since_8_4 = [line for line in after if line not in NOT_MAPPED_SINCE_9_0]
    assert sorted(set(after) - set(not_mapped_since_8_4)) == sorted(NOT_MAPPED_SINCE_9_0)
    # 8.4 has no subtests fixture, and names no reason on an XPASS(strict) summary line
    assert [line.split(" - ")[0].split(":")[0] for line in not_mapped_since_8_4] == [
        "->       available fixtures",
        "+>       available fixtures",
        "-FAILED tests/test_probe.py",
        "+FAILED tests/test_probe.py",
    ]
    assert "subtests, " in not_mapped_since_8_4[1] and "subtests, " not in not_mapped_since_8_4[0]
    assert not_mapped_since_8_4[2:] == [
        "-FAILED tests/test_probe.py::test_xpass_strict",
        "+FAILED tests/test_probe.py::test_xpass_strict - [XPASS(strict)] known",
    ]


RAISES_WITH_CONTEXT_9_0 = """\
___________________________ test_raises_match_cause ____________________________
pkg/core.py:21: in parse
    return _decode(text)
           ^^^^^^^^^^^^^
pkg/core.py:15: in _decode
    raise LookupError(f"no object in {text!r}")
E   LookupError: no object in 'oops'

The above exception was the direct cause of the following exception:
tests/test_probe.py:95: in test_raises_match_cause
    parse("oops")
pkg/core.py:23: in parse
    raise ParseError(f"bad input: {exc}") from exc
E   pkg.core.ParseError: bad input: no object in 'oops'

During handling of the above exception, another exception occurred:
tests/test_probe.py:94: in test_raises_match_cause
    with pytest.raises(ParseError, match="line 1"):
E   AssertionError: Regex pattern did not match.
E     Expected regex: 'line 1'
E     Actual message: "bad input: no object in 'oops'"
__________________________ test_raises_match_literal ___________________________"""

RAISES_9_2 = """\
___________________________ test_raises_match_cause ____________________________
tests/test_probe.py:94: in test_raises_match_cause
    with pytest.raises(ParseError, match="line 1"):
E   AssertionError: Regex pattern did not match.
E     Expected regex: 'line 1'
E     Actual message: "bad input: no object in 'oops'"
__________________________ test_raises_match_literal ___________________________"""


def test_a_failed_match_loses_the_exceptions_chained_before_it():
    assert normalise_wording(RAISES_WITH_CONTEXT_9_0) == RAISES_9_2


def test_8_4_words_a_failed_match_as_9_0_does():
    old = RAISES_9_2.replace("E     Expected regex:", "E    Regex:").replace("E     Actual message:", "E    Input:")
    assert old != RAISES_9_2
    assert normalise_wording(old) == RAISES_9_2


def test_a_chain_that_ends_elsewhere_is_kept():
    # the same chain, but the block raised past pytest.raises (its type did not match): 9.2 prints it all
    chain = RAISES_WITH_CONTEXT_9_0.replace(
        "E   AssertionError: Regex pattern did not match.\n", "E   KeyError: 'no'\n"
    ).replace('    with pytest.raises(ParseError, match="line 1"):', "    with pytest.raises(KeyError):")
    assert normalise_wording(chain) == chain
    # a test's own AssertionError, not one of those pytest.raises raises
    own = RAISES_WITH_CONTEXT_9_0.replace(
        "E   AssertionError: Regex pattern did not match.", "E   AssertionError: mine"
    )
    assert normalise_wording(own) == own


def test_a_pytest_run_nested_in_an_assertion_message_reads_the_same_in_its_long_traceback():
    # the probe's nested run, less its dict (whose order cannot be mapped): a long traceback behind "E     "
    old, new = output("9.0.3", "nested-pytest"), output("9.2.0", "nested-pytest")
    assert old != new
    assert normalise_wording(old) == new


DID_NOT_RAISE_9_0 = """\
______________________________ test_did_not_raise ______________________________
tests/test_probe.py:60: in test_did_not_raise
    with pytest.raises(ParseError):
E   Failed: DID NOT RAISE <class 'pkg.core.ParseError'>
_______________________ test_did_not_raise_nested_class ________________________
tests/test_probe.py:65: in test_did_not_raise_nested_class
    with pytest.raises(Outer.InnerError):
E   Failed: DID NOT RAISE <class 'pkg.core.Outer.InnerError'>
________________________ test_did_not_raise_local_class ________________________
tests/test_probe.py:73: in test_did_not_raise_local_class
    with pytest.raises(LocalError, match="x"):
E   Failed: DID NOT RAISE <class 'test_probe.test_did_not_raise_local_class.<locals>.LocalError'>
___________________________ test_did_not_raise_tuple ___________________________
tests/test_probe.py:78: in test_did_not_raise_tuple
    with pytest.raises((ParseError, KeyError)):
E   Failed: DID NOT RAISE any of (<class 'pkg.core.ParseError'>, <class 'KeyError'>)
=========================== short test summary info ============================
FAILED tests/test_probe.py::test_did_not_raise - Failed: DID NOT RAISE <class...
FAILED tests/test_probe.py::test_did_not_raise_nested_class - Failed: DID NOT...
FAILED tests/test_probe.py::test_did_not_raise_tuple - Failed: DID NOT RAISE ...
FAILED tests/x.py::test_y - Failed: DID NOT RAISE <class 'pkg.core.ParseError'>"""

DID_NOT_RAISE_9_2 = """\
______________________________ test_did_not_raise ______________________________
tests/test_probe.py:60: in test_did_not_raise
    with pytest.raises(ParseError):
E   Failed: DID NOT RAISE ParseError
_______________________ test_did_not_raise_nested_class ________________________
tests/test_probe.py:65: in test_did_not_raise_nested_class
    with pytest.raises(Outer.InnerError):
E   Failed: DID NOT RAISE InnerError
________________________ test_did_not_raise_local_class ________________________
tests/test_probe.py:73: in test_did_not_raise_local_class
    with pytest.raises(LocalError, match="x"):
E   Failed: DID NOT RAISE LocalError
___________________________ test_did_not_raise_tuple ___________________________
tests/test_probe.py:78: in test_did_not_raise_tuple
    with pytest.raises((ParseError, KeyError)):
E   Failed: DID NOT RAISE any of (ParseError, KeyError)
=========================== short test summary info ============================
FAILED tests/test_probe.py::test_did_not_raise - Failed: DID NOT RAISE ParseE...
FAILED tests/test_probe.py::test_did_not_raise_nested_class - Failed: DID NOT...
FAILED tests/test_probe.py::test_did_not_raise_tuple - Failed: DID NOT RAISE ...
FAILED tests/x.py::test_y - Failed: DID NOT RAISE ParseError"""


def test_the_class_that_did_not_raise_is_named_also_in_the_summary_trimmed_to_its_width():
    assert normalise_wording(DID_NOT_RAISE_9_0) == DID_NOT_RAISE_9_2


def test_a_summary_line_that_could_stand_for_two_classes_is_left():
    # trimmed inside "<class", with no failure of that name above and two classes it could be
    text = DID_NOT_RAISE_9_0.replace("::test_did_not_raise - ", "::test_elsewhere - ")
    assert normalise_wording(text).split("\n")[-4] == (
        "FAILED tests/test_probe.py::test_elsewhere - Failed: DID NOT RAISE <class..."
    )


def test_a_truncated_explanation_is_not_counted():
    old = "E     \nE     ...Full output truncated (17 lines hidden), use '-vv' to show\n___ test_next ___"
    assert normalise_wording(old) == "E     \nE     ...Full output truncated, use '-vv' to show\n___ test_next ___"
    one = "E     ...Full output truncated (1 line hidden), use '-vv' to show"
    assert normalise_wording(one) == "E     ...Full output truncated, use '-vv' to show"


@pytest.mark.parametrize(
    "line",
    [
        "Failed: DID NOT RAISE <class 'pkg.Error'>",  # printed by a test, not an exception's line
        "E   Failed: DID NOT RAISE <class 'pkg.Error'> and more",
        "    ...Full output truncated (3 lines hidden), use '-vv' to show",
        "During handling of the above exception, another exception occurred:",
    ],
)
def test_a_line_that_is_not_pytest_s_own_is_left(line):
    assert normalise_wording(line) == line


def test_the_output_a_test_run_returns_is_normalised(tmp_path):
    # the old wording, raised by a test: run_pytest's output names the class as pytest 9.2 does
    (tmp_path / "test_old.py").write_text(
        "import pytest\n\ndef test_old():\n    pytest.fail(\"DID NOT RAISE <class 'pkg.errors.ParseError'>\")\n"
    )
    run = run_pytest(tmp_path, ["test_old.py"], 60)
    assert "\nE   Failed: DID NOT RAISE ParseError\n" in run.output
    assert "\nFAILED test_old.py::test_old - Failed: DID NOT RAISE ParseError\n" in run.output


RAISES_3_11 = """\
___________________ test_invalid_capacity_is_rejected[lots] ____________________
tests/test_config.py:25: in test_invalid_capacity_is_rejected
    with pytest.raises(ConfigError, match="log_capacity"):
E   Failed: DID NOT RAISE ConfigError
_________________ test_timestamp_outside_tolerance_is_rejected _________________
tests/test_signing.py:70: in test_timestamp_outside_tolerance_is_rejected
    with pytest.raises(SignatureError, match=message):
E   AssertionError: Regex pattern did not match.
E     Expected regex: '301 seconds old'"""
PATCH_3_11 = """\
________________ test_sleep_can_be_patched_at_the_new_location _________________
tests/test_retry.py:29: in test_sleep_can_be_patched_at_the_new_location
    with patch("hookshot.transport.deliverer.time.sleep") as fake_sleep:
/usr/lib/python3.13/unittest/mock.py:1475: in __enter__
    self.target = self.getter()
                  ^^^^^^^^^^^^^"""


def _underlined(text: str, statement: str) -> str:
    """``text`` as Python 3.13 prints it: ``statement``'s context expression underlined."""
    indent = statement.index("with ") + len("with ")
    expression = statement[indent:].rsplit(" as ", 1)[0].removesuffix(":")
    return text.replace(statement + "\n", f"{statement}\n{' ' * indent}{'^' * len(expression)}\n")


def _underlines(text: str) -> int:
    return sum("^^^" in line for line in text.split("\n"))


def test_python_3_13_s_underline_of_a_with_statement_s_enter_or_exit_is_dropped():
    raises = RAISES_3_11
    for statement in (
        '    with pytest.raises(ConfigError, match="log_capacity"):',
        "    with pytest.raises(SignatureError, match=message):",
    ):
        raises = _underlined(raises, statement)
    patch = _underlined(PATCH_3_11, '    with patch("hookshot.transport.deliverer.time.sleep") as fake_sleep:')
    assert [_underlines(raises), _underlines(patch)] == [2, 2]
    assert normalise_wording(raises) == RAISES_3_11
    assert normalise_wording(patch) == PATCH_3_11
    nested = "\n".join("E     " + line for line in raises.split("\n"))
    assert normalise_wording(nested) == "\n".join("E     " + line for line in RAISES_3_11.split("\n"))


def test_an_underlined_with_statement_whose_expression_raised_is_kept():
    # every Python underlines the expression when evaluating it raised: not __enter__, not a failed raises
    opened = "tests/test_x.py:3: in test_x\n    with open(path) as handle:\n         ^^^^^^^^^^\nE   FileNotFoundError: [Errno 2] No such file or directory: 'x'"
    called = _underlined(
        "tests/test_x.py:3: in test_x\n    with pytest.raises(KeyError, mtch='x'):\nE   TypeError: unexpected keyword argument 'mtch'",
        "    with pytest.raises(KeyError, mtch='x'):",
    )
    constructed = _underlined(
        PATCH_3_11, '    with patch("hookshot.transport.deliverer.time.sleep") as fake_sleep:'
    ).replace("in __enter__", "in __init__")
    for text in (opened, called, constructed):
        assert _underlines(text) and normalise_wording(text) == text


def test_python_3_13_s_pathlib_module_reads_as_3_11_s():
    line = "E    +      where PosixPath('README.md') = <class 'pathlib._local.Path'>('README.md')"
    assert normalise_wording(line) == "E    +      where PosixPath('README.md') = <class 'pathlib.Path'>('README.md')"
    own = "printed <class 'pathlib._local.Path'>"  # a test's own output, not an explanation
    assert normalise_wording(own) == own
