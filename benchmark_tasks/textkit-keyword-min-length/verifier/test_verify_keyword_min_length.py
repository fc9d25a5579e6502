import io

import pytest


def run(argv):
    from textkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_extract_keywords_min_length():
    from textkit.analysis import extract_keywords

    text = "ox ox go cat cats horse"
    assert [(kw.term, kw.count) for kw in extract_keywords(text, 2, min_length=2)] == [
        ("cat", 2), ("ox", 2),
    ]
    assert [kw.term for kw in extract_keywords(text, min_length=5)] == ["horse"]
    assert [kw.term for kw in extract_keywords(text)] == ["cat", "horse"]


def test_keyword_scores_min_length():
    from textkit.analysis import keyword_scores

    assert set(keyword_scores("ox cat", min_length=1)) == {"ox", "cat"}
    assert set(keyword_scores("ox cat")) == {"cat"}


@pytest.mark.parametrize("bad", [0, -1])
def test_min_length_must_be_positive(bad):
    from textkit.analysis import extract_keywords, keyword_scores

    with pytest.raises(ValueError, match=f"min_length must be a positive integer, got {bad}"):
        extract_keywords("some text", min_length=bad)
    with pytest.raises(ValueError, match="min_length must be a positive integer"):
        keyword_scores("some text", min_length=bad)


def test_cli_min_length_option():
    assert run(["keywords", "--min-length", "2", "ox ox cat"]) == (0, "ox\t2\ncat\t1\n", "")
    assert run(["keywords", "ox ox cat"]) == (0, "cat\t1\n", "")
