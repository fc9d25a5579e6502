"""Bad top-level code in a macro's runtime file: loading the registry neither hangs nor dies.

A runtime file is imported when its macro is loaded, so its top-level code runs then. Code that
loops, sleeps, exits the process or raises there is one error naming the folder's file, found
within the contract's ``timeout_seconds``, and the caller's process goes on.
"""

from __future__ import annotations

import re

import pytest
from bad_input_kit import assert_error
from test_registry import clone

from pytest_granularity.core.schemas import DefinitionError
from pytest_granularity.macros import MacroRegistry

TOP_LEVEL = {
    "loops": ("while True:\n    pass\n", "importing it did not finish within 1s"),
    "sleeps": ("import time\ntime.sleep(600)\n", "importing it did not finish within 1s"),
    "exits-the-process": ("import os\nos._exit(3)\n", "importing it ended the process (exit code 3)"),
    "calls-sys-exit": ("import sys\nsys.exit(4)\n", "cannot import: SystemExit: 4"),
    "raises": ("raise ValueError('broken')\n", "cannot import: ValueError: broken"),
    "raises-on-two-lines": (
        "raise ValueError('line one\\nline two')\n",
        "cannot import: ValueError: line one line two",
    ),
}


@pytest.mark.parametrize("kind", sorted(TOP_LEVEL))
def test_bad_top_level_code_in_a_runtime_file_is_one_error_naming_it(tmp_path, kind):
    code, message = TOP_LEVEL[kind]
    folder = clone(tmp_path / "lib", f"bad-{kind}", runtime_edit=lambda text: text + "\n\n" + code)
    contract = folder / "contract.yaml"
    contract.write_text(re.sub(r"timeout_seconds: \S+", "timeout_seconds: 1", contract.read_text()))
    assert_error(
        lambda: MacroRegistry.load([tmp_path / "lib"]),
        DefinitionError,
        f"{folder / 'runtime.py'}: field '<module>': {message}",
    )
