from __future__ import annotations

import shutil

import pytest

from pytest_granularity.core.failures import FAILURE_CLASSES
from pytest_granularity.core.schemas import DefinitionError
from pytest_granularity.macros import MacroRegistry, load_macro
from pytest_granularity.macros.contract import expand, glob_match
from pytest_granularity.macros.registry import BUILTIN_FOLDER


def test_the_three_builtin_macros_load():
    registry = MacroRegistry.load()
    assert registry.names == ("move_module", "replace_and_verify", "summarize_module")
    for macro in registry:
        schema = macro.tool_schema()["function"]
        assert schema["parameters"]["type"] == "object"
        assert "When:" in schema["description"]
        assert set(macro.failure_classes) <= set(FAILURE_CLASSES)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "a/b/c.py", True),
        ("*.py", "a/b.py", False),
        ("src/**", "src/a/b.txt", True),
        ("src/?.py", "src/ab.py", False),
    ],
)
def test_glob_match(pattern, path, matches):
    assert glob_match(pattern, path) is matches


def test_expand_fills_placeholders_from_arguments():
    assert expand("{files}", {"files": ["a.py", "b.py"]}) == ["a.py", "b.py"]
    assert expand("{destination}/**", {"destination": "pkg/new/"}) == ["pkg/new/**"]
    assert expand("{destination}", {}) == []


@pytest.fixture
def broken(tmp_path):
    folder = tmp_path / "replace-and-verify"
    shutil.copytree(BUILTIN_FOLDER / "replace-and-verify", folder)
    return folder


@pytest.mark.parametrize(
    ("edit", "file", "field", "words"),
    [
        (
            lambda c: c.replace("owner: pytest-granularity\n", ""),
            "contract.yaml",
            "<root>",
            "'owner' is a required property",
        ),
        (lambda c: c.replace("[precondition_mismatch,", "[flaky,"), "contract.yaml", "failure_classes.0", "flaky"),
        (
            lambda c: c.replace("parameters:\n  type: object", "parameters:\n  type: array"),
            "contract.yaml",
            "parameters.type",
            "object root",
        ),
        (
            lambda c: c.replace("minItems: 1", "minItems: -1"),
            "contract.yaml",
            "parameters.properties.files.minItems",
            "not a valid JSON Schema",
        ),
        (
            lambda c: c.replace("run: runtime:run", "run: runtime:missing"),
            "contract.yaml",
            "run",
            "no function 'missing'",
        ),
        (
            lambda c: c.replace("check: runtime:validate", "check: nofile:validate"),
            "contract.yaml",
            "validation.check",
            "no file nofile.py",
        ),
        (
            lambda c: c.replace("name: replace-and-verify", "name: other"),
            "SKILL.md",
            "name",
            "must be 'replace-and-verify'",
        ),
        (lambda c: "no front matter", "SKILL.md", "<front matter>", "must start with"),
    ],
)
def test_a_bad_definition_is_one_error_naming_file_and_field(broken, edit, file, field, words):
    path = broken / file
    path.write_text(edit(path.read_text()))
    with pytest.raises(DefinitionError) as info:
        load_macro(broken)
    assert info.value.path == path and info.value.field == field
    assert words in str(info.value)


def test_duplicate_names_are_refused(broken):
    with pytest.raises(DefinitionError, match="already defined by"):
        MacroRegistry.load([broken.parent])
