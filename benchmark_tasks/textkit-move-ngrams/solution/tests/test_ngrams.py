import pytest

from textkit.analysis.ngrams import (
    char_ngrams,
    jaccard_similarity,
    most_common_ngrams,
    ngram_counts,
    sliding_window,
    word_ngrams,
)


def test_sliding_window():
    assert sliding_window([1, 2, 3, 4], 2) == [(1, 2), (2, 3), (3, 4)]
    assert sliding_window([1, 2, 3, 4, 5], 2, step=2) == [(1, 2), (3, 4)]


def test_sliding_window_full_and_oversized():
    assert sliding_window("abc", 3) == [("a", "b", "c")]
    assert sliding_window("abc", 4) == []


def test_sliding_window_validates_arguments():
    with pytest.raises(ValueError, match="window size must be a positive integer, got 0"):
        sliding_window([1], 0)
    with pytest.raises(ValueError, match="step must be a positive integer, got -1"):
        sliding_window([1], 1, step=-1)


def test_word_ngrams():
    assert word_ngrams("The cat sat on the mat", 2) == [
        ("the", "cat"), ("cat", "sat"), ("sat", "on"), ("on", "the"), ("the", "mat"),
    ]
    assert word_ngrams("The Cat", 1, lowercase=False) == [("The",), ("Cat",)]


def test_word_ngrams_rejects_zero():
    with pytest.raises(ValueError, match="n must be a positive integer"):
        word_ngrams("text", 0)


def test_char_ngrams_with_and_without_padding():
    assert char_ngrams("abcd", 2) == ["ab", "bc", "cd"]
    assert char_ngrams("ab", 3, pad=True) == ["  a", " ab", "ab ", "b  "]
    assert char_ngrams("ab", 3) == []


def test_ngram_counts_and_most_common():
    text = "to be or not to be, to be sure"
    counts = ngram_counts(text, 2)
    assert counts[("to", "be")] == 3
    assert most_common_ngrams(text, 2, k=2) == [(("to", "be"), 3), (("be", "or"), 1)]


def test_most_common_ngrams_rejects_bad_k():
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        most_common_ngrams("a b", 1, k=0)


def test_jaccard_similarity():
    assert jaccard_similarity("night", "NIGHT") == 1.0
    assert jaccard_similarity("abc", "xyz") == 0.0
    assert 0.0 < jaccard_similarity("night", "nacht") < 1.0
    assert jaccard_similarity("", "", n=1) == 1.0
