import io

import pytest


def test_load_stopwords_file_message(tmp_path):
    from textkit.stopwords import load_stopwords_file

    missing = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError) as excinfo:
        load_stopwords_file(missing)
    assert str(excinfo.value) == f"stopword file not found: {missing}"


def test_cli_reports_missing_stopword_file(tmp_path):
    from textkit.cli import main

    missing = tmp_path / "nope.txt"
    err = io.StringIO()
    code = main(["keywords", "--stopwords", str(missing), "text"], stdin=io.StringIO(),
                stdout=io.StringIO(), stderr=err)
    assert code == 1
    assert err.getvalue() == f"textkit: error: stopword file not found: {missing}\n"
