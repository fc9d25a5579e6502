from pathlib import Path

import pytest

SUMMARY = Path("docs/api/template.md")

# name -> (parameters that must be listed, a fragment of the first docstring line)
EXPECTED = {
    "TemplateError": ((), "Base class for all template errors"),
    "TemplateSyntaxError": ((), "cannot be parsed"),
    "UndefinedVariableError": ((), "missing from the context"),
    "Template": (("source", "strict"), "A compiled template"),
    "register_filter": (("name",), "Decorator registering a filter"),
    "available_filters": ((), "names of all registered filters"),
    "render_template": (("source", "context", "strict", "kwargs"), "render it in one step"),
}
PRIVATE = ["_parse", "_resolve", "_location", "_split_filters", "_text", "_upper", "_Expression"]


def _lines():
    assert SUMMARY.is_file(), "docs/api/template.md is missing"
    return [" ".join(line.split()) for line in SUMMARY.read_text(encoding="utf-8").splitlines()]


def _entry(name, doc):
    import re

    pattern = re.compile(rf"\b{re.escape(name)}\b")
    found = [line for line in _lines() if pattern.search(line) and doc in line]
    assert found, f"{name} is not listed with its first docstring line in {SUMMARY}"
    return found[0]


def test_summary_names_the_module():
    assert any("textkit.template" in line for line in _lines())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_public_name_is_listed_with_parameters_and_doc(name):
    params, doc = EXPECTED[name]
    line = _entry(name, doc)
    for param in params:
        assert param in line, f"{name}: parameter {param!r} missing in {line!r}"


def test_private_names_are_not_listed():
    text = SUMMARY.read_text(encoding="utf-8")
    for name in PRIVATE:
        assert f" {name}(" not in text


def test_template_module_still_works():
    from textkit.template import Template, render_template

    assert render_template("Hello, {{ name|title }}!", name="ada") == "Hello, Ada!"
    assert Template("{{ a }} {{ b|upper }}").variables == ["a", "b"]
