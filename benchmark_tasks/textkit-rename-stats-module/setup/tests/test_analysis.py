import pytest

from textkit.analysis import ANALYSES, TextStats, run_analysis


def test_run_analysis_stats(sample_text):
    stats = run_analysis("stats", sample_text)
    assert isinstance(stats, TextStats)
    assert stats.words == 23


def test_run_analysis_passes_options(sample_text):
    keywords = run_analysis("keywords", sample_text, top_n=1)
    assert [(kw.term, kw.count) for kw in keywords] == [("parser", 4)]
    assert run_analysis("stats", "one two", words_per_minute=60).reading_time_seconds == 2


def test_every_registered_analysis_runs():
    for name in ANALYSES:
        run_analysis(name, "Some text to analyse.")


def test_unknown_analysis():
    with pytest.raises(ValueError, match="unknown analysis 'sentiment'; expected one of: keywords, stats"):
        run_analysis("sentiment", "text")
