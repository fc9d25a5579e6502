"""Every use the package makes of another project's private internals, each with a plain slow path.

pytest's ``_pytest`` modules and CPython's underscored functions carry no promise from one release to the
next. Each is reached only here, and where one is missing (or not of the shape this knows) its caller takes
the slow path named below, which gives the same results, only slower. Imports nothing of the package: any
group may use it.
"""

from __future__ import annotations

import atexit
import importlib
import random
import threading
from typing import Any

MT_STATE_WORDS = 625
"""CPython's Mersenne Twister state (``random.getstate()`` version 3): 624 words and the position."""


def import_pytest_plugins() -> None:
    """Import pytest's own plugins (``_pytest.config.default_plugins``, each a ``_pytest`` module), for a warm
    server to hold before it forks. Slow path, a plugin not imported: every run imports it itself, as a fresh
    process does."""
    try:
        from _pytest.config import default_plugins as plugins
    except ImportError:
        plugins = ()  # type: ignore[assignment]  # an internal gone: the slow path
    for plugin in (*plugins, "_argcomplete", "tracemalloc"):
        try:
            importlib.import_module(f"_pytest.{plugin}")
        except ImportError:
            pass


def assertion_rewrite() -> Any:
    """pytest's assertion rewriting (``_pytest.assertion.rewrite``) where it has what the rewrite cache patches
    and calls (``_rewrite_test``, ``rewrite_asserts``), else None. Slow path, None: pytest rewrites every file
    itself."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return None
    return rewrite if hasattr(rewrite, "_rewrite_test") and hasattr(rewrite, "rewrite_asserts") else None


def can_finish_like_an_interpreter() -> bool:
    """Whether a forked child can end as the interpreter does (:func:`finish_like_an_interpreter`). Slow path,
    False: no warm server; every pytest run is a fresh process."""
    return hasattr(threading, "_shutdown") and hasattr(atexit, "_run_exitfuncs")


def finish_like_an_interpreter() -> None:
    """What the interpreter does at exit before it flushes: join the threads (``threading._shutdown``), then run
    the ``atexit`` handlers (``atexit._run_exitfuncs``)."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()


def twister_words(generator: random.Random) -> tuple[list[int], int] | None:
    """``generator``'s Mersenne Twister state as numpy's ``RandomState.set_state`` takes it (624 words and the
    position), where ``getstate()`` has CPython's shape. Slow path, None: draw with ``generator`` itself."""
    version, internal, *_ = generator.getstate()
    if version != 3 or len(internal) != MT_STATE_WORDS:
        return None
    return list(internal[:-1]), internal[-1]


def fixture_marker(value: object) -> object | None:
    """pytest's record on a fixture function (``_pytest.fixtures.getfixturemarker``), None for anything else. Slow
    path, None for everything: no plugin is found by the fixtures it offers, only by what the project declares."""
    try:
        from _pytest.fixtures import getfixturemarker
    except ImportError:
        return None
    try:
        return getfixturemarker(value)
    except Exception:  # an object whose attribute lookup raises is no fixture
        return None
