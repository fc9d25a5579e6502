

def test_split_paragraphs_on_whitespace_only_lines():
    from textkit.wrap import split_paragraphs

    assert split_paragraphs("one\n  \ntwo") == ["one", "two"]
    assert split_paragraphs("one\n\t\n\ntwo\nstill two") == ["one", "two\nstill two"]
    assert split_paragraphs("one\ntwo") == ["one\ntwo"]


def test_fill_paragraphs_keeps_paragraphs_apart():
    from textkit.wrap import fill_paragraphs

    assert fill_paragraphs("one\n  \ntwo", 20) == "one\n\ntwo"


def test_count_paragraphs_on_whitespace_only_lines():
    from textkit.analysis.stats import count_paragraphs

    assert count_paragraphs("one\n\t\ntwo") == 2
    assert count_paragraphs("one\n \n \n two\n\nthree") == 3
    assert count_paragraphs("single\nparagraph") == 1


def test_text_stats_paragraphs():
    from textkit.analysis import text_stats

    assert text_stats("First. \n   \nSecond.").paragraphs == 2
