"""Assertion rewriting once per test file's content, for every run a warm pytest server forks.

pytest rewrites the asserts of every test file it imports (parse, rewrite, compile: about 0.12 s
for a fixture's suite here, a third of a warm run), and with no bytecode written (none may be
written into a workspace) it did so again in every run. A warm server (``pytest_server``) keeps
the rewritten code of the test files its runs imported, keyed on path and content, and its
children use it: the code pytest would have made, made by the server itself from the file as it
read it, never by a run.

Only content the harness vouches for is kept: the files of a task's workspace as it was set up
(``vouch``), never what an agent wrote. The hidden verifier's files are kept only by the verifier's own
server (``pytest_server.VerifierServer``), from the bytes the harness laid, never by the server the
agent's runs fork from.
A child starts from the server's memory, so anything kept is readable by every later run: kept
this way, it holds the test files tasks start from (fixture and setup, given to every run of a
task; a later run of another task can read them too), nothing an agent or a run made, so no run
can pass anything to a later one through it.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import stat
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

from ..compat import assertion_rewrite
from ..core.vouched import digest

KEPT_FILES = 512
"""Rewritten files a server keeps, the oldest dropped first (a fixture's tests, for every task of it)."""
LARGEST_FILE = 1 << 20
HINTS_BYTES = 1 << 15
"""What a child may tell its server of the files it rewrote (paths, one a line); the rest is dropped."""
LEARN_SECONDS = 1.0
"""The most a server spends rewriting after one run: the next run waits for it."""


class RewriteCache:
    """A server's rewritten test files: filled by the server (``learn``), read by its children (``install``)."""

    def __init__(self) -> None:
        """Made in the server, with pytest imported: what its ``_rewrite_test`` returns is read once, here."""
        rewrite = assertion_rewrite()
        self.codes: dict[tuple[str, bytes], CodeType] = {}
        self.first = None if rewrite is None else _first_result(rewrite._rewrite_test)

    def install(self, misses: list[str]) -> None:
        """In a child: pytest takes kept code for a file whose content it was made from, and rewrites the
        rest itself as always (their paths go to ``misses``). Left alone for a pytest whose rewriting this
        does not know, and where assertion pass hooks are on (the server's code has none)."""
        rewrite, first = assertion_rewrite(), self.first
        if rewrite is None or first is None:
            return
        original: Callable[[Path, Any], tuple[Any, CodeType]] = rewrite._rewrite_test

        def cached(fn: Path, config: Any) -> tuple[Any, CodeType]:
            if config is None or not config.getini("enable_assertion_pass_hook"):
                source = fn.read_bytes()
                code = self.codes.get((str(fn), digest(source)))
                if code is not None:
                    return first(fn, source), code
                misses.append(str(fn))
            return original(fn, config)

        rewrite._rewrite_test = cached

    def learn(self, hints: bytes, cwd: str, vouched: frozenset[bytes], laid: Mapping[str, bytes] | None = None) -> None:
        """In the server, after a run: rewrite the files the run rewrote itself, where their content is vouched
        for. ``hints`` come from agent-run code, so they only choose which files are read: regular files under
        ``cwd``, read here (or the bytes the harness ``laid`` there for the run), rewritten here."""
        laid = laid or {}
        deadline = time.monotonic() + LEARN_SECONDS
        root = os.path.realpath(cwd) + os.sep
        for path in hints.decode("utf-8", errors="replace").splitlines():
            if time.monotonic() > deadline:
                return
            if not (os.path.isabs(path) and path.endswith(".py") and os.path.realpath(path).startswith(root)):
                continue
            source = laid[path] if path in laid else _read_regular(path)
            if source is None:
                continue
            key = (path, digest(source))
            if key[1] not in vouched or key in self.codes:
                continue
            code = _rewritten(path, source)
            if code is not None:
                self.codes[key] = code
                while len(self.codes) > KEPT_FILES:
                    del self.codes[next(iter(self.codes))]


def _first_result(rewrite_test: Callable[..., Any]) -> Callable[[Path, bytes], Any] | None:
    """What pytest's ``_rewrite_test`` returns beside the code: the source's hash (pytest 9.2) or its stat (8)."""
    returns = str(inspect.signature(rewrite_test).return_annotation)
    if "stat_result" in returns:
        return lambda fn, source: os.stat(fn)
    if returns.startswith("tuple[bytes,"):
        return lambda fn, source: importlib.util.source_hash(source)
    return None


def _read_regular(path: str) -> bytes | None:
    """A regular file's bytes; None for anything else (a FIFO or a device would block or never end)."""
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            info = os.fstat(file.fileno())
            regular = stat.S_ISREG(info.st_mode) and info.st_size <= LARGEST_FILE
            return file.read(LARGEST_FILE + 1) if regular else None
    except OSError:
        return None


def _rewritten(path: str, source: bytes) -> CodeType | None:
    """pytest's rewriting of ``source`` (what ``_rewrite_test`` does), or None when it warned (a child must
    see the warning itself) or failed (the child raises it itself)."""
    rewrite = assertion_rewrite()
    if rewrite is None:
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tree = ast.parse(source, filename=path)
            rewrite.rewrite_asserts(tree, source, path, None)
            code = compile(tree, path, "exec", dont_inherit=True)
        except Exception:
            return None
    return None if caught else code


def hinted(misses: Iterable[str]) -> bytes:
    """What a child tells its server, within the server's limit (nothing when the list would not fit)."""
    text = "\n".join(misses).encode("utf-8", errors="replace")
    return text if len(text) <= HINTS_BYTES else b""
