import pytest

from textkit.analysis.stemmer import MIN_STEM_LENGTH, stem, stem_words


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
    assert stem(word) == expected


@pytest.mark.parametrize("word", ["glass", "status", "analysis", "going", "need"])
def test_stem_leaves_protected_words_alone(word):
    assert stem(word) == word


def test_stem_short_words_are_only_lowercased():
    assert stem("Cat") == "cat"
    assert stem("IS") == "is"
    assert len("bus") <= MIN_STEM_LENGTH and stem("bus") == "bus"


def test_stem_is_case_insensitive():
    assert stem("RUNNING") == stem("running") == "run"


def test_stem_words_preserves_order():
    assert stem_words(["Parsers", "parsing", "parsed"]) == ["parser", "pars", "pars"]
