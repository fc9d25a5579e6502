
import pytest


@pytest.mark.parametrize(
    ("word", "expected"),
    [("table", 2), ("syllable", 3), ("happy", 2), ("system", 2), ("candle", 2), ("make", 1),
     ("the", 1), ("rhythm", 1), ("beautiful", 3), ("yes", 1), ("", 0), ("42", 0)],
)
def test_count_syllables(word, expected):
    from textkit.analysis import count_syllables

    assert count_syllables(word) == expected


def test_text_stats_counts_syllables():
    from textkit.analysis import text_stats

    assert text_stats("A happy table.").syllables == 5
