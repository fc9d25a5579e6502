import pytest

from textkit.stopwords import is_stopword, load_stopwords, load_stopwords_file, parse_stopwords


def test_bundled_stopwords_are_loaded_from_data_file():
    words = load_stopwords()
    assert {"the", "and", "of", "don't"} <= words
    assert "parser" not in words
    assert all(word == word.lower() and not word.startswith("#") for word in words)


def test_load_stopwords_is_cached():
    assert load_stopwords() is load_stopwords()


def test_parse_stopwords_ignores_comments_and_blank_lines():
    lines = ["# header", "", "The", "  and  # trailing comment", "   "]
    assert parse_stopwords(lines) == frozenset({"the", "and"})


def test_load_stopwords_file(tmp_path):
    path = tmp_path / "extra.txt"
    path.write_text("# custom\nFoo\nbar\n", encoding="utf-8")
    assert load_stopwords_file(path) == frozenset({"foo", "bar"})


def test_load_stopwords_file_missing(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match="stopword file not fund"):
        load_stopwords_file(missing)


def test_is_stopword():
    assert is_stopword("The")
    assert not is_stopword("textkit")
    assert is_stopword("TextKit", extra=["textkit"])
