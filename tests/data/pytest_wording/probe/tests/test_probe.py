import re
import subprocess
import sys
import warnings

import pytest

from pkg.core import Outer, ParseError, Point, deep, handled, parse


def test_int_eq():
    assert 1 + 1 == 3


def test_dict_eq():
    assert {"zeta": 1, "alpha": 2, "mid": [1, 2, 3]} == {"zeta": 1, "alpha": 3, "mid": [1, 2, 4]}


def test_dict_eq_long():
    left = {f"key{i:02d}": "v" * 10 for i in range(20, 0, -1)}
    right = dict(left, key05="w")
    assert left == right


def test_list_eq():
    assert [1, 2, 3, 4] == [1, 2, 3, 5]


def test_long_text():
    left = "\n".join(f"line {i}" for i in range(40))
    right = left.replace("line 20", "line twenty")
    assert left == right


def test_in_long_string():
    assert "needle" in "hay " * 200


def test_set_eq():
    assert {3, 1, 2} == {1, 2, 4}


def test_dataclass_eq():
    assert Point(1, 2) == Point(1, 3)


def test_approx():
    assert 0.1 + 0.2 == pytest.approx(0.4)


def test_approx_list():
    assert [0.1, 0.2] == pytest.approx([0.1, 0.25])


def test_custom_message():
    value = {"b": 1, "a": 2}
    assert not value, f"value was {value}"


def test_did_not_raise():
    with pytest.raises(ParseError):
        pass


def test_did_not_raise_nested_class():
    with pytest.raises(Outer.InnerError):
        pass


def test_did_not_raise_local_class():
    class LocalError(Exception):
        pass

    with pytest.raises(LocalError, match="x"):
        pass


def test_did_not_raise_tuple():
    with pytest.raises((ParseError, KeyError)):
        pass


def test_did_not_raise_builtin():
    with pytest.raises(ZeroDivisionError):
        pass


def test_raises_match_deep():
    with pytest.raises(ParseError, match="shallow"):
        deep(3)


def test_raises_match_cause():
    with pytest.raises(ParseError, match="line 1"):
        parse("oops")


def test_raises_match_context():
    with pytest.raises(ParseError, match="key"):
        handled()


def test_raises_match_literal():
    with pytest.raises(ParseError, match="^deep failure there$"):
        deep(0)


def test_raises_match_literal_escaped():
    with pytest.raises(ParseError, match=re.escape("deep (failure) there")):
        deep(0)


def test_raises_match_same_text():
    with pytest.raises(ParseError, match="deep (failure) here"):
        raise ParseError("deep (failure) here")


def test_raises_check():
    with pytest.raises(ParseError, check=lambda e: "nope" in str(e)):
        deep(0)


def test_raises_wrong_type():
    with pytest.raises(KeyError):
        deep(1)


def test_raises_match_then_other_error():
    try:
        with pytest.raises(ParseError, match="shallow"):
            deep(1)
    except AssertionError:
        raise RuntimeError("re-raised after the raises failure")


def test_raises_in_except_block():
    try:
        {}["k"]
    except KeyError:
        with pytest.raises(ParseError, match="shallow"):
            deep(0)


def test_raises_func_form():
    pytest.raises(ParseError, deep, 0)
    pytest.raises(KeyError, lambda: None)


def test_warns():
    with pytest.warns(DeprecationWarning):
        pass


def test_warns_match():
    with pytest.warns(UserWarning, match="other"):
        warnings.warn("some warning", UserWarning)


def test_deprecated_call():
    with pytest.deprecated_call():
        pass


def test_emits_warning():
    warnings.warn("this is deprecated", DeprecationWarning)


def test_capture(capsys):
    print("hello from stdout")
    print("hello from stderr", file=sys.stderr)
    assert False


def test_fail():
    pytest.fail("explicit failure message")


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_fixture_error(broken):
    pass


def test_missing_fixture(nonexistent_fixture):
    pass


@pytest.mark.parametrize("word, expected", [("ab", 2), ("abc", 4), ("a" * 60, 1)])
def test_param(word, expected):
    assert len(word) == expected


def test_unicode_bytes():
    assert "Jürgen ✓" == "Jurgen ✓"
    

def test_bytes():
    assert b"abc\x00" == b"abd\x00"


def test_exception_plain():
    deep(2)


def test_exception_cause():
    parse("nope")


def test_keyerror():
    {"a": 1}["b"]


def test_skip():
    pytest.skip("not today")


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="known", strict=True)
def test_xpass_strict():
    pass


def test_nested_pytest():
    body = (
        "import pytest\n"
        "def f():\n"
        "    raise ValueError('inner message 1')\n"
        "def test_inner():\n"
        "    with pytest.raises(ValueError, match='inner message 2'):\n"
        "        f()\n"
        "def test_inner_dnr():\n"
        "    with pytest.raises(ValueError):\n"
        "        pass\n"
        "def test_inner_dict():\n"
        "    assert {'b': 1, 'a': 2} == {'b': 1, 'a': 3}\n"
    )
    import pathlib, tempfile
    d = pathlib.Path(tempfile.mkdtemp())
    (d / "test_inner.py").write_text(body)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_inner.py"], capture_output=True, text=True, cwd=d)
    code = result.returncode
    assert code == 0, result.stdout


@pytest.fixture
def raising_fixture():
    with pytest.raises(ParseError):
        pass


def test_fixture_did_not_raise(raising_fixture):
    pass


class TestGroup:
    def test_method_did_not_raise(self):
        with pytest.raises(KeyError):
            pass
