from unittest import mock

import pytest

from textkit.analysis import DEFAULT_TOP_N, Keyword, extract_keywords, keyword_scores


def test_extract_keywords_groups_forms_by_stem(sample_text):
    keywords = extract_keywords(sample_text, 3)
    assert [(kw.term, kw.count) for kw in keywords] == [
        ("parser", 4), ("input", 2), ("build", 1),
    ]


def test_extract_keywords_ignores_stopwords_short_words_and_numbers():
    terms = [kw.term for kw in extract_keywords("The cat and the ox in 1998 of the cat")]
    assert terms == ["cat"]


def test_extract_keywords_default_limit():
    text = " ".join(f"word{chr(ord('a') + i)}" for i in range(DEFAULT_TOP_N + 5))
    assert len(extract_keywords(text)) == DEFAULT_TOP_N


def test_extract_keywords_ties_are_alphabetical():
    terms = [kw.term for kw in extract_keywords("zebra apple mango")]
    assert terms == ["apple", "mango", "zebra"]


def test_extract_keywords_rejects_bad_top_n():
    with pytest.raises(ValueError, match="top_n must be a positive integer, got 0"):
        extract_keywords("text", 0)


def test_extra_stopwords_are_case_insensitive():
    terms = [kw.term for kw in extract_keywords("Textkit textkit parser", extra_stopwords=["TEXTKIT"])]
    assert terms == ["parser"]


def test_keyword_scores_are_shares_of_candidates():
    scores = keyword_scores("apple apple banana cherry")
    assert scores["apple"] == Keyword(term="apple", stem="apple", count=2, score=0.5)
    assert sum(kw.score for kw in scores.values()) == pytest.approx(1.0)


def test_keyword_scores_without_stemming():
    scores = keyword_scores("parser parsers", use_stemming=False)
    assert set(scores) == {"parser", "parsers"}


def test_empty_text_has_no_keywords():
    assert keyword_scores("") == {}
    assert extract_keywords("the and of") == []


def test_stopword_list_can_be_patched():
    with mock.patch("textkit.stopwords.load_stopwords", return_value=frozenset({"apple"})):
        terms = [kw.term for kw in extract_keywords("the apple and the banana")]
    assert terms == ["the", "and", "banana"]


def test_stemmer_is_used_for_grouping():
    with mock.patch("textkit.analysis.keywords.stem_word", side_effect=lambda word: word[:3]) as fake:
        scores = keyword_scores("banana band")
    assert set(scores) == {"ban"}
    assert scores["ban"].count == 2
    assert fake.call_count == 2
