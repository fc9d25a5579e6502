import pytest

from textkit.stemmer import MIN_STEM_LENGTH, stem_word, stem_words


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("running", "run"),
        ("runs", "run"),
        ("hopped", "hop"),
        ("falling", "fall"),
        ("ponies", "pony"),
        ("studied", "study"),
        ("boxes", "box"),
        ("watches", "watch"),
        ("makes", "make"),
        ("classes", "class"),
        ("quickly", "quick"),
        ("relational", "relate"),
        ("creation", "create"),
        ("kindness", "kind"),
        ("agreement", "agree"),
    ],
)
def test_stem(word, expected):
    assert stem_word(word) == expected


@pytest.mark.parametrize("word", ["glass", "status", "analysis", "going", "need"])
def test_stem_leaves_protected_words_alone(word):
    assert stem_word(word) == word


def test_stem_short_words_are_only_lowercased():
    assert stem_word("Cat") == "cat"
    assert stem_word("IS") == "is"
    assert len("bus") <= MIN_STEM_LENGTH and stem_word("bus") == "bus"


def test_stem_is_case_insensitive():
    assert stem_word("RUNNING") == stem_word("running") == "run"


def test_stem_words_preserves_order():
    assert stem_words(["Parsers", "parsing", "parsed"]) == ["parser", "pars", "pars"]
