import ast
import re
from pathlib import Path

import pytest

MODULE = Path("textkit/config.py")

# name -> (parameters that must be listed, a fragment of the first docstring line)
EXPECTED = {
    "ConfigError": ((), "missing, malformed or invalid"),
    "TextkitConfig": ((), "Effective textkit settings"),
    "merge_config": (("base", "data", "source"), "updated with the options"),
    "default_config": ((), "packaged"),
    "load_config": (("path", "environ"), "Load the effective configuration"),
}


def _docstring():
    doc = ast.get_docstring(ast.parse(MODULE.read_text(encoding="utf-8")), clean=True) or ""
    return [" ".join(line.split()) for line in doc.splitlines()]


def test_original_docstring_is_kept():
    text = " ".join(_docstring())
    assert text.startswith("Load textkit settings from JSON configuration files.")
    assert "TEXTKIT_CONFIG" in text


def test_summary_heading():
    assert any("textkit.config" in line and "API" in line for line in _docstring())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_public_name_is_listed(name):
    params, doc = EXPECTED[name]
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    lines = [line for line in _docstring() if pattern.search(line) and doc in line]
    assert lines, f"{name} is not listed with its first docstring line in the module docstring"
    for param in params:
        assert param in lines[0], f"{name}: parameter {param!r} missing in {lines[0]!r}"


def test_private_helpers_are_not_listed():
    text = "\n".join(_docstring())
    for name in ("_check_option", "_parse_json"):
        assert name not in text


def test_config_still_works(tmp_path):
    from textkit.config import ConfigError, TextkitConfig, default_config, load_config

    assert default_config() == TextkitConfig()
    path = tmp_path / "c.json"
    path.write_text('{"width": 40}', encoding="utf-8")
    assert load_config(path, environ={}).width == 40
    with pytest.raises(ConfigError):
        load_config(tmp_path / "missing.json", environ={})
