import importlib.util


def test_readability_module():
    from textkit.analysis.readability import WORDS_PER_MINUTE, count_paragraphs, reading_time_seconds, text_stats

    assert WORDS_PER_MINUTE == 200
    assert reading_time_seconds(200) == 60
    assert count_paragraphs("a\n\nb") == 2
    assert text_stats("One two. Three!").sentences == 2


def test_old_module_is_gone():
    assert importlib.util.find_spec("textkit.analysis.stats") is None


def test_package_reexports():
    from textkit import text_stats as top_level
    from textkit.analysis import TextStats, count_syllables, flesch_reading_ease, text_stats

    assert top_level is text_stats
    assert isinstance(text_stats("a b"), TextStats)
    assert count_syllables("table") == 2
    assert flesch_reading_ease("") == 0.0


def test_registry_still_runs_stats_by_name():
    from textkit.analysis import run_analysis

    assert run_analysis("stats", "one two three").words == 3
    assert run_analysis("stats", "one two", words_per_minute=60).reading_time_seconds == 2
    assert [kw.term for kw in run_analysis("keywords", "apple apple pear", top_n=1)] == ["apple"]
