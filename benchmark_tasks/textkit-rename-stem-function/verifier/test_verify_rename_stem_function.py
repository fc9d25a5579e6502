from unittest import mock


def test_new_name():
    from textkit.stemmer import stem_word, stem_words

    assert stem_word("running") == "run"
    assert stem_word("Ponies") == "pony"
    assert stem_words(["boxes", "quickly"]) == ["box", "quick"]


def test_old_name_is_gone():
    import textkit.analysis.keywords as keywords
    import textkit.stemmer as stemmer

    assert not hasattr(stemmer, "stem")
    assert not hasattr(keywords, "stem")


def test_keywords_use_the_renamed_function():
    from textkit.analysis import keyword_scores

    with mock.patch("textkit.analysis.keywords.stem_word", side_effect=lambda word: word[:3]) as fake:
        scores = keyword_scores("banana band")
    assert set(scores) == {"ban"}
    assert fake.call_count == 2
    assert set(keyword_scores("parsers parser")) == {"parser"}
