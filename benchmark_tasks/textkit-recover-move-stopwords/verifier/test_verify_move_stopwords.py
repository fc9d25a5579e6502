import importlib.util
import io
from unittest import mock


def test_stopwords_live_in_analysis():
    from textkit.analysis.stopwords import is_stopword, load_stopwords, load_stopwords_file, parse_stopwords

    assert {"the", "and", "of"} <= load_stopwords()
    assert is_stopword("The") and not is_stopword("parser")
    assert parse_stopwords(["# c", "Foo"]) == frozenset({"foo"})
    assert callable(load_stopwords_file)


def test_old_module_is_gone():
    assert importlib.util.find_spec("textkit.stopwords") is None


def test_keywords_read_the_moved_list():
    from textkit.analysis import extract_keywords

    with mock.patch("textkit.analysis.stopwords.load_stopwords", return_value=frozenset({"apple"})):
        terms = [kw.term for kw in extract_keywords("the apple and the banana")]
    assert terms == ["the", "and", "banana"]
    assert [kw.term for kw in extract_keywords("the apple and the banana")] == ["apple", "banana"]


def test_cli_stopword_file(tmp_path):
    from textkit.cli import main

    path = tmp_path / "stop.txt"
    path.write_text("apple\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["keywords", "--stopwords", str(path), "apple apple pear"], stdin=io.StringIO(),
                stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "pear\t1\n"
