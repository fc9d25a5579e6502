

def test_three_letter_words_are_keywords():
    from textkit.analysis import extract_keywords

    assert [(kw.term, kw.count) for kw in extract_keywords("The cat and the cat")] == [("cat", 2)]
    assert [kw.term for kw in extract_keywords("The cat and the ox in 1998 of the cat")] == ["cat"]


def test_keyword_scores_include_three_letter_words():
    from textkit.analysis import keyword_scores

    assert set(keyword_scores("dog cat ox")) == {"dog", "cat"}
