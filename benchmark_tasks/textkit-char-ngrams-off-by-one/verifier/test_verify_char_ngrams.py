

def test_char_ngrams_include_the_last_gram():
    from textkit.ngrams import char_ngrams

    assert char_ngrams("abcd", 2) == ["ab", "bc", "cd"]
    assert char_ngrams("ab", 2) == ["ab"]
    assert char_ngrams("abc", 3) == ["abc"]
    assert char_ngrams("abc", 1) == ["a", "b", "c"]
    assert char_ngrams("ab", 3) == []


def test_padded_char_ngrams():
    from textkit.ngrams import char_ngrams

    assert char_ngrams("ab", 3, pad=True) == ["  a", " ab", "ab ", "b  "]
    assert char_ngrams("a", 2, pad=True) == [" a", "a "]


def test_jaccard_sees_the_last_character():
    from textkit.ngrams import jaccard_similarity

    assert jaccard_similarity("ab", "ab", n=2) == 1.0
    assert jaccard_similarity("abc", "abd", n=3) == 0.25
