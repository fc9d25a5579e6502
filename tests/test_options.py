"""The option table: every option's ini key is its default, read by the one reader, and help shows defaults."""

from __future__ import annotations

import pytest

from pytest_granularity.core.defaults import DEFAULT_TOP_K
from pytest_granularity.plugin.model_plugin import MODEL_OPTIONS
from pytest_granularity.plugin.options import OPTIONS, Option, named, setting

KEYED = [o for o in (*OPTIONS, *MODEL_OPTIONS) if o.has_ini]


def _sample(option: Option) -> str:
    if option.choices:
        return option.choices[-1]
    return "7" if option.type is int else "from-ini"


def test_every_ini_key_is_read_as_its_options_default(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n" + "".join(f"{o.ini_name} = {_sample(o)}\n" for o in KEYED))
    config = pytester.parseconfig()
    assert {o.name: setting(config, o) for o in KEYED} == {o.name: o.type(_sample(o)) for o in KEYED}


def test_the_option_overrides_its_ini_key_and_neither_gives_the_default(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ngranularity_seed = 7\ngranularity_model = ini-model\n")
    config = pytester.parseconfig("--granularity-seed=3", "--granularity-model=given")
    assert setting(config, named("seed")) == 3
    assert setting(config, named("model", MODEL_OPTIONS)) == "given"
    assert setting(pytester.parseconfig(), named("retrieval-k")) == DEFAULT_TOP_K


def test_help_shows_the_default_it_is_given() -> None:
    assert named("retrieval-k").help_text().endswith(f"(default {DEFAULT_TOP_K}).")
    assert "{default}" not in "".join(o.help_text() for o in (*OPTIONS, *MODEL_OPTIONS))
