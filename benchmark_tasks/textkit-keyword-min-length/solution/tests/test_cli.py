import io
import json
from unittest import mock

import pytest

from textkit.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, build_parser, main
from textkit.config import ConfigError, TextkitConfig


def run(argv, stdin_text=""):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin_text), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_parser_requires_a_command(capsys):
    with pytest.raises(SystemExit) as excinfo:
        build_parser().parse_args([])
    assert excinfo.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_slug_command():
    assert run(["slug", "Hello, World!"]) == (EXIT_OK, "hello-world\n", "")


def test_slug_command_options():
    code, out, _ = run(["slug", "--separator", "_", "--max-length", "11", "alpha beta gamma"])
    assert (code, out) == (EXIT_OK, "alpha_beta\n")


def test_wrap_command_reads_stdin():
    code, out, _ = run(["wrap", "--width", "10"], stdin_text="The quick brown fox")
    assert code == EXIT_OK
    assert out == "The quick\nbrown fox\n"


def test_wrap_command_justify():
    code, out, _ = run(["wrap", "--width", "8", "--justify", "a bb c dd e"])
    assert (code, out) == (EXIT_OK, "a  bb  c\ndd e\n")


def test_keywords_command_json(sample_text):
    code, out, _ = run(["keywords", "--top", "2", "--json", sample_text])
    assert code == EXIT_OK
    assert json.loads(out) == [{"term": "parser", "count": 4}, {"term": "input", "count": 2}]


def test_keywords_command_min_length():
    assert run(["keywords", "--min-length", "2", "ox ox cat"]) == (EXIT_OK, "ox\t2\ncat\t1\n", "")
    assert run(["keywords", "ox ox cat"]) == (EXIT_OK, "cat\t1\n", "")


def test_keywords_command_with_stopword_file(tmp_path):
    stopword_file = tmp_path / "stop.txt"
    stopword_file.write_text("apple\n", encoding="utf-8")
    code, out, _ = run(["keywords", "--stopwords", str(stopword_file), "apple apple pear"])
    assert (code, out) == (EXIT_OK, "pear\t1\n")


def test_keywords_command_missing_stopword_file(tmp_path):
    code, out, err = run(["keywords", "--stopwords", str(tmp_path / "nope.txt"), "text"])
    assert code == EXIT_FAILURE
    assert out == ""
    assert "textkit: error: stopword file not found" in err


def test_stats_command_outputs(sample_text):
    code, out, _ = run(["stats", "--json", sample_text])
    assert code == EXIT_OK
    assert json.loads(out)["words"] == 23
    code, out, _ = run(["stats", "one two"])
    assert "words" in out and "reading_time_seconds" in out


def test_config_file_sets_defaults(config_file):
    path = config_file('{"width": 10, "slug_separator": "_"}')
    assert run(["--config", str(path), "slug", "a b"])[1] == "a_b\n"
    assert run(["--config", str(path), "wrap", "The quick brown fox"])[1] == "The quick\nbrown fox\n"


def test_config_errors_exit_with_usage_status():
    with mock.patch("textkit.cli.load_config", side_effect=ConfigError("bad.json: broken")):
        code, out, err = run(["slug", "x"])
    assert code == EXIT_USAGE
    assert out == ""
    assert err == "textkit: error: bad.json: broken\n"


def test_handler_value_errors_exit_with_failure():
    with mock.patch("textkit.cli.load_config", return_value=TextkitConfig(max_slug_length=1)):
        code, _, err = run(["slug", "--separator", "a", "x"])
    assert code == EXIT_FAILURE
    assert "separator must be a non-empty string" in err
