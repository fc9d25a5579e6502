"""Shared by the bad-input suites: run an entry point under a time bound and say how it ended.

Every case asserts one exact outcome. When the outcome is wrong, the assertion message starts
with the kind of defect (HANG, TRACEBACK, ACCEPTED, UNCLEAR, WROTE-OUTSIDE), so a run of the
suite can be counted by kind.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

BOUND_SECONDS = 60.0
"""No case may take longer: past it the case fails as a hang (the slowest honest case takes a few seconds)."""


class Hang(BaseException):
    """Raised in the main thread when a case passes its time bound (a BaseException, so no handler swallows it)."""


@contextmanager
def time_bound(seconds: float = BOUND_SECONDS) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise Hang(f"HANG: still running after {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class Ended:
    """How an entry point ended: its exit code and output, or the exception that escaped it."""

    code: int | None
    out: str
    err: str
    escaped: str | None = None


def bounded(
    call: Callable[[], int | None], capsys: pytest.CaptureFixture[str], seconds: float = BOUND_SECONDS
) -> Ended:
    """Run ``call`` (a ``main(argv)``) under the time bound, keeping what it printed."""
    escaped = None
    code: int | None = None
    try:
        with time_bound(seconds):
            code = call()
    except Hang as exc:
        pytest.fail(str(exc))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # the defect this suite looks for: an exception escaped to the user
        escaped = f"{type(exc).__name__}: {exc}"[:300]
    out, err = capsys.readouterr()
    return Ended(code, out, err, escaped)


def cli(argv: Sequence[str], capsys: pytest.CaptureFixture[str], seconds: float = BOUND_SECONDS) -> Ended:
    from pytest_granularity.cli import main

    return bounded(lambda: main(list(argv)), capsys, seconds)


def matches(text: str, pattern: str) -> bool:
    """``pattern`` with ``*`` for any text; everything else literal (brackets too, unlike fnmatch)."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), text, flags=re.S) is not None


def assert_refused(ended: Ended, expected: str, code: int = 2, stream: str = "err") -> None:
    """One line on ``stream`` matching ``expected`` (``*`` for any text), exit ``code``, no traceback."""
    text = getattr(ended, stream)
    assert ended.escaped is None, f"TRACEBACK: {ended.escaped}"
    assert "Traceback" not in ended.out + ended.err, f"TRACEBACK: {(ended.out + ended.err)[-300:]}"
    assert ended.code != 0, f"ACCEPTED: exit 0; printed {text[-300:]!r}"
    lines = text.strip().splitlines()
    assert len(lines) == 1 and matches(lines[0], expected), f"UNCLEAR: {text[-400:]!r} is not {expected!r}"
    assert ended.code == code, f"UNCLEAR: exit {ended.code}, not {code}"


def assert_error(raised: Callable[[], object], kind: type[BaseException], expected: str) -> None:
    """``raised()`` raises ``kind`` whose one-line message matches ``expected`` (``*`` for any text), under the time bound."""
    try:
        with time_bound():
            raised()
    except kind as exc:
        message = str(exc)
        assert "\n" not in message and matches(message, expected), f"UNCLEAR: {message[:400]!r} is not {expected!r}"
        return
    except Hang as exc:
        pytest.fail(str(exc))
    except Exception as exc:
        pytest.fail(f"TRACEBACK: {type(exc).__name__}: {str(exc)[:300]}")
    pytest.fail("ACCEPTED: no error raised")


def listing(folder: Path) -> set[str]:
    """Every path under ``folder``, to see that nothing was written where it must not be."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}
