import importlib.util
from unittest import mock


def test_stemmer_lives_in_analysis():
    from textkit.analysis.stemmer import MIN_STEM_LENGTH, stem, stem_words

    assert MIN_STEM_LENGTH == 3
    assert stem("running") == "run"
    assert stem_words(["Parsers", "boxes"]) == ["parser", "box"]


def test_old_module_is_gone():
    assert importlib.util.find_spec("textkit.stemmer") is None


def test_keywords_still_group_by_stem():
    from textkit.analysis import extract_keywords

    assert [(kw.term, kw.count) for kw in extract_keywords("parsers parser parsers input", 1)] == [
        ("parsers", 3),
    ]


def test_keywords_stem_can_still_be_patched():
    from textkit.analysis import keyword_scores

    with mock.patch("textkit.analysis.keywords.stem", side_effect=lambda word: word[:3]):
        assert set(keyword_scores("banana band")) == {"ban"}
