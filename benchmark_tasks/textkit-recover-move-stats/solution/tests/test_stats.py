import pytest

from textkit.analysis import TextStats, count_syllables, flesch_reading_ease, text_stats
from textkit.stats import WORDS_PER_MINUTE, count_paragraphs, reading_time_seconds


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("the", 1),
        ("make", 1),
        ("table", 2),
        ("syllable", 3),
        ("beautiful", 3),
        ("rhythm", 1),
        ("Queue", 1),
        ("don't", 1),
        ("", 0),
        ("123", 0),
    ],
)
def test_count_syllables(word, expected):
    assert count_syllables(word) == expected


def test_count_paragraphs():
    assert count_paragraphs("one\n\ntwo\n   \nthree") == 3
    assert count_paragraphs("single\nparagraph") == 1
    assert count_paragraphs("   ") == 0


def test_reading_time_seconds_rounds_up():
    assert reading_time_seconds(WORDS_PER_MINUTE) == 60
    assert reading_time_seconds(1) == 1
    assert reading_time_seconds(0) == 0
    assert reading_time_seconds(150, words_per_minute=100) == 90


def test_reading_time_rejects_bad_speed():
    with pytest.raises(ValueError, match="words_per_minute must be a positive integer, got 0"):
        reading_time_seconds(10, words_per_minute=0)


def test_flesch_reading_ease():
    assert flesch_reading_ease("") == 0.0
    easy = flesch_reading_ease("The cat sat. The dog ran.")
    hard = flesch_reading_ease(
        "Institutional considerations necessitate comprehensive organizational reevaluation."
    )
    assert easy > 100 > 0 > hard


def test_text_stats(sample_text):
    stats = text_stats(sample_text)
    assert isinstance(stats, TextStats)
    assert stats.words == 23
    assert stats.sentences == 5
    assert stats.paragraphs == 2
    assert stats.characters == len(sample_text)
    assert stats.unique_words == 17
    assert stats.average_sentence_length == pytest.approx(4.6)
    assert stats.reading_time_seconds == 7


def test_text_stats_empty_text():
    stats = text_stats("")
    assert stats.words == 0
    assert stats.average_word_length == 0.0
    assert stats.lexical_diversity == 0.0
    assert stats.flesch_reading_ease == 0.0


def test_text_stats_as_dict():
    data = text_stats("One two. Three!").as_dict()
    assert data["words"] == 3
    assert data["sentences"] == 2
    assert list(data)[0] == "characters"
