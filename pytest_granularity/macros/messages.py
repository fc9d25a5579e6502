"""What crosses between the plugin's process and a macro's: a part's answer as text, and test runs asked for.

A macro's code runs in a process of its own (forked, or sandboxed in a fresh Python); everything it
sends back is a ``PipeMessage``, plain text, never a pickle. While a part runs it may ask for tests,
which run in the plugin's process (``answer_with_tests``), not in the macro's.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import time
from collections.abc import Callable
from typing import Any

from ..process.pytest_process import PytestRun
from .context import MacroContext, MacroError

PipeMessage = tuple[str, str]
"""A kind (one of ``KINDS``) and its text: not the transcript's ``Message``, which is what a model reads."""
KINDS = ("ok", "not_text", "macro_error", "outside_write", "error", "run_tests")


def answer_with_tests(
    receive: Callable[[float], PipeMessage | None], reply: Callable[[str], None], ctx: MacroContext, seconds: float
) -> PipeMessage | None:
    """A part's answer (None past ``seconds``); meanwhile the tests it asks for run here, in the
    plugin's process, so they go through the same sandbox and the same memo as every other pytest
    run (see ``pytest_process``): a macro's validation costs what it did before it had a process."""
    deadline = time.monotonic() + seconds
    while True:
        message = receive(max(0.0, deadline - time.monotonic()))
        if message is None or message[0] != RUN_TESTS:
            return message
        paths = _paths(message[1])
        if paths is None:
            return "error", "the macro's process sent a malformed request"
        reply(json.dumps(dataclasses.asdict(ctx.run_tests(paths))))


RUN_TESTS = "run_tests"
"""The request a macro's process sends for a test run (its paths as JSON); the answer is the PytestRun as JSON."""


def _paths(text: str) -> list[str] | None:
    try:
        paths = json.loads(text)
    except ValueError:
        return None
    return paths if isinstance(paths, list) and all(isinstance(p, str) for p in paths) else None


def tests_over(send: Callable[[str], None], receive: Callable[[], str]) -> Callable[[list[str]], PytestRun]:
    """In a macro's process: ``run_tests`` as a request to the plugin's process (see ``answer_with_tests``)."""

    def run(paths: list[str]) -> PytestRun:
        send(json.dumps(paths))
        return PytestRun(**json.loads(receive()))

    return run


def message_of(function: Callable[[MacroContext], Any], ctx: MacroContext) -> PipeMessage:
    """Call ``function(ctx)`` and say how it ended, as text that can leave the child process."""
    try:
        value = function(ctx)
        return ("ok", value) if isinstance(value, str) else ("not_text", type(value).__name__)
    except MacroError as exc:
        return ("macro_error", str(exc))
    except OSError as exc:
        if exc.errno == errno.EROFS and exc.filename is not None:
            return ("outside_write", os.path.abspath(os.fsdecode(exc.filename)))
        return ("error", f"{type(exc).__name__}: {exc}")
    except BaseException as exc:
        return ("error", f"{type(exc).__name__}: {exc}")
