

def test_default_reading_speed_is_200_words_per_minute():
    from textkit.analysis.stats import reading_time_seconds

    assert reading_time_seconds(200) == 60
    assert reading_time_seconds(100) == 30
    assert reading_time_seconds(1) == 1


def test_text_stats_reading_time():
    from textkit.analysis import text_stats

    text = " ".join(["word"] * 300)
    assert text_stats(text).reading_time_seconds == 90
    assert text_stats(text, words_per_minute=300).reading_time_seconds == 60


def test_cli_stats_reports_a_minute_for_200_words():
    import io
    import json

    from textkit.cli import main

    out = io.StringIO()
    code = main(["stats", "--json", " ".join(["alpha"] * 200)], stdin=io.StringIO(),
                stdout=out, stderr=io.StringIO())
    assert code == 0
    assert json.loads(out.getvalue())["reading_time_seconds"] == 60
