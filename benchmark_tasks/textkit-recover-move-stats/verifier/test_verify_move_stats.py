import importlib.util


def test_stats_module_at_top_level():
    from textkit.stats import WORDS_PER_MINUTE, count_paragraphs, count_syllables, text_stats

    assert WORDS_PER_MINUTE == 200
    assert count_paragraphs("a\n\nb") == 2
    assert count_syllables("syllable") == 3
    assert text_stats("One two. Three!").words == 3


def test_old_module_is_gone():
    assert importlib.util.find_spec("textkit.analysis.stats") is None


def test_reexports_keep_working():
    from textkit import text_stats as top_level
    from textkit.analysis import TextStats, count_syllables, flesch_reading_ease, text_stats
    from textkit.stats import text_stats as moved

    assert top_level is text_stats is moved
    assert isinstance(text_stats("a b"), TextStats)
    assert count_syllables("table") == 2
    assert flesch_reading_ease("") == 0.0
