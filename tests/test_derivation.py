"""Derivation reads requests worded as people word them, not only as the benchmark's prompts are.

Every prompt here is written for this test, in other words than any task's; the files are a
fixture project's. What is asserted is the call derivation proposes (or that it proposes none),
never anything a model does.
"""

from __future__ import annotations

import pytest
from conftest import REPO

from pytest_granularity.core.workspace import read_tree
from pytest_granularity.macros.derivation import named_files
from pytest_granularity.macros.derivation.moves import moves
from pytest_granularity.macros.derivation.replacements import MAX_CANDIDATES, replacements
from pytest_granularity.macros.derivation.summaries import summaries


@pytest.fixture(scope="module")
def textkit() -> dict[str, bytes]:
    return read_tree(REPO / "fixtures" / "textkit")


STEMMER_MOVE = {"source": "textkit/stemmer.py", "destination": "textkit/analysis/stemmer.py"}


@pytest.mark.parametrize(
    "prompt",
    [
        "Please relocate textkit/stemmer.py under the textkit.analysis package.",
        "The stemmer (`textkit.stemmer`) should live in textkit/analysis/ with the rest of the analysis code.",
        "stemmer.py belongs in the analysis subpackage, as `textkit.analysis.stemmer`; fix the imports.",
        "Can we move the stemmer module to textkit/analysis/stemmer.py? Keep the tests green.",
    ],
)
def test_a_move_is_found_however_it_is_worded(textkit, prompt):
    assert moves(prompt, textkit)[0] == STEMMER_MOVE


@pytest.mark.parametrize(
    "prompt",
    [
        "Add a docstring to textkit/stemmer.py and describe it in docs/stemmer.md.",
        "`textkit.stemmer.stem` returns 'runs' for 'runs'; fix it in textkit/stemmer.py.",
        "Rename the method `Keyword.stem` to `Keyword.root` (textkit/analysis/keywords.py).",
    ],
)
def test_no_move_without_a_new_place_in_the_project_or_a_word_of_moving(textkit, prompt):
    assert moves(prompt, textkit) == []


def test_a_summary_goes_where_the_request_says(textkit):
    page = "Could you write an API reference page docs/api/slugs.md for the `textkit.slugs` module?"
    docstring = "Give the module docstring of textkit/slugs.py an overview of its public API."
    assert summaries(page, textkit) == [{"module": "textkit/slugs.py", "destination": "docs/api/slugs.md"}]
    assert summaries(docstring, textkit) == [{"module": "textkit/slugs.py"}]
    assert summaries("Fix the slug length check in textkit/slugs.py.", textkit) == []


def _effect(call: dict, files: dict[str, bytes]) -> dict[str, str]:
    out = {}
    for rel in call["files"]:
        text = files[rel].decode()
        assert text.count(call["old"]) == 1, call
        out[rel] = text.replace(call["old"], call["new"], 1)
    return out


def _slug_length(files: dict[str, bytes], value: int) -> dict[str, str]:
    text = files["textkit/slugs.py"].decode()
    return {"textkit/slugs.py": text.replace("MAX_SLUG_LENGTH = 64", f"MAX_SLUG_LENGTH = {value}", 1)}


@pytest.mark.parametrize(
    "prompt",
    [
        "Bump MAX_SLUG_LENGTH in textkit/slugs.py from 64 to 100.",
        "In textkit/slugs.py the default slug length should be 100, not 64.",
        "`MAX_SLUG_LENGTH` (textkit/slugs.py) is too small; slugs may be up to 100 characters long.",
    ],
)
def test_a_value_change_is_found_however_it_is_worded(textkit, prompt):
    calls = replacements(prompt, textkit)
    assert 0 < len(calls) <= MAX_CANDIDATES
    assert _effect(calls[0], textkit) == _slug_length(textkit, 100)


def test_a_typo_quoted_inside_a_longer_message_is_replaced_where_the_files_spell_it():
    files = read_tree(REPO / "benchmark_tasks" / "textkit-recover-stopword-message" / "setup")
    prompt = (
        'Running `textkit keywords --stopwords nope.txt` prints "textkit: error: stopword file not fund: nope.txt". '
        'The message in textkit/stopwords.py should say "stopword file not found"; tests/test_stopwords.py and '
        "tests/test_cli.py expect the old text and need the same fix."
    )
    assert replacements(prompt, files)[0] == {
        "files": ["textkit/stopwords.py", "tests/test_stopwords.py", "tests/test_cli.py"],
        "old": "stopword file not fund",
        "new": "stopword file not found",
    }


def test_files_are_named_by_path_module_attribute_bare_name_and_the_readme(textkit):
    prompt = "See `textkit.slugs.MAX_SLUG_LENGTH`, stemmer.py, textkit/wrap.py and the README."
    assert named_files(prompt, textkit) == ["textkit/slugs.py", "textkit/stemmer.py", "textkit/wrap.py", "README.md"]


def test_a_request_that_states_no_value_gets_no_replacement(textkit):
    assert replacements("The slugs in textkit/slugs.py come out wrong for long titles; fix it.", textkit) == []
