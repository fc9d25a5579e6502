"""The generated sections of the README and docs/ agree with the committed files they show.

``scripts/generate_docs.py`` holds a generator per section name; this fails when a section's text
differs from what its generator makes now, when a marker names no generator or is never closed,
and when the reference report behind the results table disagrees with the gate's baseline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))

import generate_docs

SECTIONS = [s for p in generate_docs.documents(REPO) for s in generate_docs.sections(p)]


def _id(section: generate_docs.Section) -> str:
    return f"{section.path.relative_to(REPO)}:{section.name}"


@pytest.mark.parametrize("section", SECTIONS, ids=[_id(s) for s in SECTIONS])
def test_a_generated_section_agrees_with_its_source(section: generate_docs.Section) -> None:
    assert section.name in generate_docs.GENERATORS, (
        f"{_id(section)}: no generator; known: {sorted(generate_docs.GENERATORS)}"
    )
    expected = generate_docs.GENERATORS[section.name](REPO)
    assert section.text == expected, f"{_id(section)} is out of date: run python scripts/generate_docs.py"


def test_every_marker_is_closed_and_every_generator_is_shown() -> None:
    assert not {str(p): generate_docs.unclosed(p) for p in generate_docs.documents(REPO) if generate_docs.unclosed(p)}
    assert {s.name for s in SECTIONS} == set(generate_docs.GENERATORS)
    readme = {s.name for s in SECTIONS if s.path.name == "README.md"}
    assert "reference-results" in readme


def test_regenerating_rewrites_only_the_sections(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "before\n<!-- generated: a -->\nold\n<!-- /generated: a -->\nmiddle\n"
        "<!-- generated: b -->\n<!-- /generated: b -->\nafter\n"
    )
    assert [(s.name, s.text) for s in generate_docs.sections(page)] == [("a", "old"), ("b", "")]
    assert generate_docs.regenerate(page, {"a": "| new |", "b": "x\ny"}) == (
        "before\n<!-- generated: a -->\n| new |\n<!-- /generated: a -->\nmiddle\n"
        "<!-- generated: b -->\nx\ny\n<!-- /generated: b -->\nafter\n"
    )
    page.write_text("<!-- generated: c -->\nno end\n")
    assert generate_docs.unclosed(page) == ["c"]
    with pytest.raises(KeyError, match="no generator for c"):
        generate_docs.generated_texts(REPO, {"c"})


def test_the_results_table_shows_the_runs_the_gate_compares_with() -> None:
    """The committed report (the README's table) and the committed baseline (the gate's) hold the same runs."""
    baseline = json.loads((REPO / ".granularity" / "baseline.json").read_text())["aggregates"]
    shown = {f"{s.policy}|{s.fault}": s for s in generate_docs.reference_summaries(REPO)}
    assert shown.keys() == baseline.keys()
    for key, summary in shown.items():
        assert (summary.runs, summary.success_rate) == (baseline[key]["runs"], baseline[key]["success_rate"]), key
        assert summary.mean_tokens == pytest.approx(baseline[key]["mean_tokens"], abs=1e-6), key
