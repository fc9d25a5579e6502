import io
import json

import pytest

TEXT = " ".join(["word"] * 100)


def run(argv):
    from textkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_config_default_matches_module_constant():
    from textkit.analysis.stats import WORDS_PER_MINUTE
    from textkit.config import TextkitConfig, default_config

    assert TextkitConfig().words_per_minute == WORDS_PER_MINUTE == 200
    assert default_config().words_per_minute == 200
    assert default_config() == TextkitConfig()


def test_config_file_sets_words_per_minute(tmp_path):
    from textkit.config import load_config

    path = tmp_path / "textkit.json"
    path.write_text('{"words_per_minute": 150}', encoding="utf-8")
    assert load_config(path, environ={}).words_per_minute == 150


@pytest.mark.parametrize("value", [0, -5, "fast", 1.5, True])
def test_invalid_words_per_minute_is_rejected(value):
    from textkit.config import ConfigError, TextkitConfig, merge_config

    with pytest.raises(ConfigError, match="words_per_minute"):
        merge_config(TextkitConfig(), {"words_per_minute": value}, source="test.json")


def test_cli_stats_uses_configured_speed(tmp_path):
    path = tmp_path / "textkit.json"
    path.write_text('{"words_per_minute": 100}', encoding="utf-8")
    code, out, _ = run(["--config", str(path), "stats", "--json", TEXT])
    assert code == 0
    assert json.loads(out)["reading_time_seconds"] == 60


def test_cli_option_overrides_config(tmp_path):
    path = tmp_path / "textkit.json"
    path.write_text('{"words_per_minute": 100}', encoding="utf-8")
    code, out, _ = run(["--config", str(path), "stats", "--json", "--words-per-minute", "300", TEXT])
    assert code == 0
    assert json.loads(out)["reading_time_seconds"] == 20


def test_cli_default_speed(monkeypatch):
    monkeypatch.delenv("TEXTKIT_CONFIG", raising=False)
    code, out, _ = run(["stats", "--json", TEXT])
    assert code == 0
    assert json.loads(out)["reading_time_seconds"] == 30
    code, out, _ = run(["stats", "--json", "--words-per-minute", "50", TEXT])
    assert json.loads(out)["reading_time_seconds"] == 120


def test_readme_documents_the_option():
    from pathlib import Path

    assert "words_per_minute" in Path("README.md").read_text(encoding="utf-8")
