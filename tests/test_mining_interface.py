"""A mined task's interface section names what its fail-to-pass tests use that the commit adds or changes."""

from __future__ import annotations

from textwrap import dedent

from pytest_granularity.run.interface import Interface, interface

PACKAGE = {"strutils/__init__.py": b""}
SHORTEN = '''
def shorten(text):
    """Cut text to ten characters."""
    return text[:10]
'''
ELLIPSIZE = '''
def ellipsize(text, width=10):
    """Shorten text to width.

    With an ellipsis.
    """
    return text[: width - 1] + "…"
'''


def source(text: str) -> bytes:
    return dedent(text).encode()


def mined(
    before: str | None,
    after: str,
    test: str,
    selected: tuple[str, ...] = ("tests/test_text.py::test_it",),
    path: str = "strutils/text.py",
) -> Interface:
    """The interface of a commit that turns ``path`` from ``before`` (absent when None) into ``after``, with
    the test file ``tests/test_text.py`` holding ``test``."""
    parent = {**PACKAGE, **({path: source(before)} if before is not None else {})}
    commit = {**PACKAGE, path: source(after)}
    return interface(parent, commit, [path], {"tests/test_text.py": source(test)}, list(selected))


def test_an_added_function_the_test_calls_is_named_with_its_signature_and_docstring() -> None:
    test = (
        "from strutils.text import ellipsize\n\ndef test_it():\n    assert ellipsize('abcdefghijkl') == 'abcdefghi…'\n"
    )
    section = mined(SHORTEN, SHORTEN + ELLIPSIZE, test).section()
    assert section == "The tests use:\n- strutils.text.ellipsize(text, width=10): Shorten text to width."


def test_tests_that_use_only_what_the_parent_has_need_no_section() -> None:
    test = "from strutils.text import shorten\n\ndef test_it():\n    assert shorten('abcdefghijkl') == 'abcdefghij'\n"
    found = mined(SHORTEN, SHORTEN.replace("[:10]", "[:10].strip()") + ELLIPSIZE, test)
    assert found.section() == "" and found.missing("Strip shortened text") == []


def test_a_changed_signature_is_given_as_the_commit_writes_it() -> None:
    after = SHORTEN.replace("(text)", "(text, width: int = 10) -> str").replace("[:10]", "[:width]")
    test = "from strutils import text\n\ndef test_it():\n    assert text.shorten('abcdef', width=3) == 'abc'\n"
    found = mined(SHORTEN, after, test)
    assert found.section().splitlines()[1] == (
        "- strutils.text.shorten(text, width: int = 10) -> str: Cut text to ten characters."
    )
    assert found.missing("Let shorten take a width") == []  # not new: the parent has it


def test_a_private_helper_is_listed_only_when_a_test_uses_it_itself() -> None:
    after = SHORTEN + "\ndef _cut(text, width):\n    return text[:width]\n" + ELLIPSIZE
    calls = "from strutils.text import ellipsize\n\ndef test_it():\n    assert ellipsize('abc')\n"
    assert "_cut" not in mined(SHORTEN, after, calls).section()
    direct = "from strutils.text import _cut\n\ndef test_it():\n    assert _cut('abc', 1) == 'a'\n"
    found = mined(SHORTEN, after, direct)
    assert found.section() == "The tests use:\n- strutils.text._cut(text, width)"
    assert found.missing("Add a helper") == []  # private: the audit asks only for public names


def test_a_method_added_to_an_existing_class_and_called_on_an_instance_is_listed() -> None:
    before = "class Box:\n    def __init__(self, width):\n        self.width = width\n"
    doc = '"""Width times\n        height. One by default."""'  # its first sentence wraps: the line gives it whole
    after = before + f"\n    def area(self, height=1):\n        {doc}\n        return self.width\n"
    test = "from strutils.text import Box\n\ndef test_it():\n    box = Box(3)\n    assert box.area(2) == 6\n"
    assert mined(before, after, test).section() == (
        "The tests use:\n- strutils.text.Box.area(height=1): Width times height."
    )


def test_a_rename_is_given_as_old_to_new() -> None:
    after = SHORTEN.replace("def shorten(", "def truncate(")
    test = "from strutils.text import truncate\n\ndef test_it():\n    assert truncate('abcdefghijkl') == 'abcdefghij'\n"
    found = mined(SHORTEN, after, test)
    assert found.section() == (
        "The tests use:\n- strutils.text.shorten → strutils.text.truncate(text): Cut text to ten characters."
    )
    assert found.missing("Rename shorten") == ["truncate"]


def test_a_new_module_is_named_by_its_dotted_name() -> None:
    test = "from strutils.text import ellipsize\n\ndef test_it():\n    assert ellipsize('abc')\n"
    after = '"""Text helpers."""\n' + ELLIPSIZE
    assert mined(None, after, test).section().splitlines()[1:] == [
        "- strutils.text (a new module): Text helpers.",
        "- strutils.text.ellipsize(text, width=10): Shorten text to width.",
    ]


def test_a_src_layout_drops_src_from_the_module_name() -> None:
    test = "from strutils.text import ellipsize\n\ndef test_it():\n    assert ellipsize('abc')\n"
    parent = {"src/strutils/__init__.py": b""}
    commit = {**parent, "src/strutils/text.py": source(ELLIPSIZE)}
    found = interface(
        parent, commit, ["src/strutils/text.py"], {"tests/test_text.py": source(test)}, ["tests/test_text.py::test_it"]
    )
    assert [item.module for item in found.items] == ["strutils.text", "strutils.text"]


def test_only_the_selected_tests_and_what_their_file_shares_count() -> None:
    after = SHORTEN + ELLIPSIZE + "\nWIDTH = 10\n"
    test = """
        import pytest
        from strutils import text

        @pytest.fixture
        def width():
            return text.WIDTH

        class TestText:
            def test_it(self, width):
                assert text.ellipsize('abc', width)

            def test_other(self):
                assert text.shorten('abc') == 'abc'

        def test_unselected():
            assert text.ellipsize('abc')
    """
    found = mined(SHORTEN.replace("shorten", "cut"), after, test, ("tests/test_text.py::TestText::test_it[x-1]",))
    assert [item.name for item in found.items] == ["ellipsize", "WIDTH"]  # shorten: only test_other calls it


def test_missing_names_the_new_public_names_a_prompt_does_not_say() -> None:
    after = SHORTEN + ELLIPSIZE + "\ndef pad(text):\n    return text\n"
    test = "from strutils.text import ellipsize, pad\n\ndef test_it():\n    assert pad(ellipsize('abc'))\n"
    found = mined(SHORTEN, after, test)
    assert found.missing("Shorten long labels") == ["ellipsize", "pad"]
    assert found.missing("Add ellipsize() and pad to strutils") == []
    assert found.missing(found.section()) == []
