"""Bad macro code in ``applicability.derive``: bounded by the macro's timeout, one error naming macro and part.

A check that loops forever, exits its process or raises must not hang or end the run that
computes a task's router features; each is an ``ApplicabilityError`` naming the contract field.
"""

from __future__ import annotations

import re

import pytest
from bad_input_kit import assert_error
from test_registry import clone

from pytest_granularity.core.workspace import Workspace
from pytest_granularity.macros import MacroRegistry
from pytest_granularity.macros.suggestions import ApplicabilityError
from pytest_granularity.routing.routers import features_of

BODIES = {
    "loops": ("    while True:\n        pass\n", "the check of bad stopped after its timeout of 1s*"),
    "exits": ("    import os\n    os._exit(3)\n", "the check of bad failed: *"),
    "raises": ("    raise ValueError('broken')\n", "the check of bad failed: ValueError: broken"),
    "sleeps": ("    import time\n    time.sleep(60)\n", "the check of bad stopped after its timeout of 1s*"),
    "returns-junk": ("    return 5\n", "the check of bad failed: TypeError: *"),
}


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_a_bad_derive_is_one_error_under_the_macros_timeout(fix_add, tmp_path, kind):
    body, message = BODIES[kind]
    runtime = f"\n\ndef derive_arguments(prompt, files):\n{body}    return []\n"
    folder = clone(
        tmp_path / "lib",
        "bad",
        "applicability:\n  derive: runtime:derive_arguments\n  description: bad\n",
        lambda t: t + runtime,
    )
    contract = folder / "contract.yaml"
    contract.write_text(re.sub(r"timeout_seconds: \S+", "timeout_seconds: 1", contract.read_text()))
    macros = MacroRegistry.load([tmp_path / "lib"])
    with Workspace.for_task(fix_add) as ws:
        assert_error(
            lambda: features_of(fix_add, ws, macros),
            ApplicabilityError,
            f"{contract}: field 'applicability.derive': {message}",
        )
