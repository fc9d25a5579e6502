
import pytest


@pytest.mark.parametrize(
    ("word", "expected"),
    [("runs", "run"), ("boxes", "box"), ("hopped", "hop"), ("running", "run"),
     ("cats", "cat"), ("falling", "fall"), ("ponies", "pony")],
)
def test_three_letter_stems_are_accepted(word, expected):
    from textkit.stemmer import stem

    assert stem(word) == expected


def test_undoubling_keeps_three_letter_minimum():
    from textkit.stemmer import stem

    # "add" + "ed": the doubled consonant of a three-letter stem is kept.
    assert stem("added") == "add"
    assert stem("odds") == "odd"


def test_keywords_group_inflected_forms():
    from textkit.analysis import extract_keywords

    keywords = extract_keywords("boxes box boxes runs run", 2)
    assert [(kw.stem, kw.count) for kw in keywords] == [("box", 3), ("run", 2)]
