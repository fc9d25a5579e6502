"""The deterministic reference agent: a stand-in for a competent model, for CI.

It knows the task's reference solution (the files as they must end up) and the initial
workspace, handed to it through the :class:`Oracle` channel that no other agent gets, and pays
honest token costs for the observations a model would need: it lists and
searches before it reads, reads every file before editing it and computes its edits from what
the read showed, and after a failed macro it looks at the diff and reads what still differs
before it edits it. When it degrades having called no macro (none applied), it has seen nothing
of the workspace yet, so it plays its whole micro script. Where the task's reference macro call is
not offered, it uses macros for part of the change: it calls every piece of its reference change
that an offered macro makes (the macro contracts' ``pieces``, made in turn: ``run/piece_calls.py``),
then hands over to the micro tools (``use_micro_tools``, where the policy offers it) and finishes as
after a failed macro.
It isolates what this plugin gates (policies, routers, macros and recovery): a run's tokens
move only when those do. It is not a model, and its numbers say nothing about one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Generator, Sequence
from typing import Any

from ..core.tools import FINISH, HAND_OVER, MICRO_TOOLS
from ..core.transcript import Message, ToolCall
from ..core.workspace import render_diff, solved_files
from . import AgentSetup

Script = Generator[ToolCall, str, None]

_TERM = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|'([^'\n]+)'|\b([A-Za-z_][\w]*(?:[./][\w]+)+|[a-z]+_[a-z0-9_]+)\b")
_DIFF_PATH = re.compile(r"^(?:--- a|\+\+\+ b)/(.+)$", re.MULTILINE)


class ReferenceAgent:
    """Plays one of three scripts, chosen by the tools it is offered: micro, macro, or recovery."""

    uses_oracle = True

    def __init__(self, setup: AgentSetup) -> None:
        if setup.oracle is None:
            raise ValueError("the reference agent needs the task's oracle (AgentSetup.oracle)")
        self.task = setup.oracle.task
        self.initial = dict(setup.oracle.initial)
        self.target = solved_files(self.task, self.initial)
        self.pieces = setup.oracle.pieces
        self._script: Script | None = None
        self._offered: frozenset[str] = frozenset()
        self._macro_phase = False
        self._called_macro = False

    def next_call(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolCall:
        self._offered = frozenset(t["function"]["name"] for t in tools)
        macro_phase = bool(self._offered - MICRO_TOOLS.keys())
        if self._script is None or macro_phase != self._macro_phase:
            started, self._macro_phase = self._script is not None, macro_phase
            self._script = self._choose(started)
            return next(self._script)
        return self._script.send(messages[-1].content)

    def _choose(self, started: bool) -> Script:
        if self._macro_phase:
            return self._macro()
        return self._recover() if started and self._called_macro else self._micro()

    @property
    def _to_change(self) -> list[str]:
        paths = self.initial.keys() | self.target.keys()
        return sorted(p for p in paths if self.initial.get(p) != self.target.get(p))

    def _micro(self) -> Script:
        yield ToolCall("list_files", {})
        anchor = self._search_anchor()
        if anchor:
            yield ToolCall("search", {"pattern": anchor})
        for path in self._to_change:
            current = None
            if path in self.initial:
                current = _parse_read((yield ToolCall("read_file", {"path": path})))
            yield from _converge(path, current, self.target.get(path))
        yield from self._test_and_finish()

    def _macro(self) -> Script:
        """The task's reference macro call when it is offered; else a call for every piece of the reference change
        an offered macro makes, handing over to the micro tools for the rest where the policy offers that."""
        macro = self.task.macro
        calls = [(macro.skill, dict(macro.args))] if macro is not None and macro.skill in self._offered else []
        if not calls:
            calls = [(name, dict(args)) for name, args in self.pieces if name in self._offered]
            if calls:
                calls.append((HAND_OVER, {}))
        for name, args in calls:
            if name in self._offered:
                self._called_macro = True
                yield ToolCall(name, args)
        yield ToolCall(FINISH, {})

    def _recover(self) -> Script:
        diff = yield ToolCall("show_diff", {})
        touched = set(_DIFF_PATH.findall(diff))
        for path in sorted(touched | set(self._to_change)):
            wanted = self.target.get(path)
            if path not in touched:
                current = _parse_read((yield ToolCall("read_file", {"path": path}))) if path in self.initial else None
            elif render_diff(path, self.initial.get(path), wanted) in diff:
                continue
            elif f"+++ b/{path}\n" in diff:
                current = _parse_read((yield ToolCall("read_file", {"path": path})))
            else:
                current = None
            yield from _converge(path, current, wanted)
        yield from self._test_and_finish()

    def _test_and_finish(self) -> Script:
        yield ToolCall("run_tests", {"paths": list(self.task.tests)} if self.task.tests else {})
        yield ToolCall(FINISH, {})

    def _search_anchor(self) -> str | None:
        """What the prompt names, as a search pattern; else the first line the change touches."""
        for match in _TERM.finditer(self.task.prompt):
            term = next(g for g in match.groups() if g)
            return re.escape(term)
        for path in self._to_change:
            before = _lines(self.initial.get(path))
            after = set(_lines(self.target.get(path)))
            changed = next((line.strip() for line in before if line not in after and line.strip()), None)
            if changed:
                return re.escape(changed)
        return None


def _converge(path: str, current: str | None, wanted: bytes | None) -> Script:
    """The micro calls that turn ``current`` (as the agent saw it) into ``wanted``."""
    if wanted is None:
        if current is not None:
            yield ToolCall("delete_file", {"path": path})
        return
    text = wanted.decode("utf-8")
    if current is None:
        yield ToolCall("create_file", {"path": path, "content": text})
        return
    if not current:
        yield ToolCall("delete_file", {"path": path})
        yield ToolCall("create_file", {"path": path, "content": text})
        return
    for old, new in _edits(current, text):
        yield ToolCall("edit_file", {"path": path, "old": old, "new": new})


def _edits(current: str, wanted: str) -> list[tuple[str, str]]:
    """Hunk-by-hunk replacements, bottom-up, each widened with context until its old text is unique."""
    lines = current.splitlines(keepends=True)
    target = wanted.splitlines(keepends=True)
    opcodes = difflib.SequenceMatcher(None, lines, target, autojunk=False).get_opcodes()
    edits = []
    for tag, i1, i2, j1, j2 in reversed(opcodes):
        if tag == "equal":
            continue
        text = "".join(lines)
        lo, hi = i1, i2
        while not "".join(lines[lo:hi]) or text.count("".join(lines[lo:hi])) != 1:
            if lo == 0 and hi == len(lines):
                break
            lo, hi = max(lo - 1, 0), min(hi + 1, len(lines))
        new_lines = lines[lo:i1] + target[j1:j2] + lines[i2:hi]
        edits.append(("".join(lines[lo:hi]), "".join(new_lines)))
        lines[lo:hi] = new_lines
    return edits


def _parse_read(observation: str) -> str:
    """The file text back from a ``read_file`` observation (a header, then numbered lines)."""
    body = observation.split("\n", 1)[1] if "\n" in observation else ""
    return "".join(line.split("\t", 1)[1] + "\n" for line in body.split("\n") if "\t" in line)


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", errors="replace") if data is not None else None


def _lines(data: bytes | None) -> list[str]:
    return (_text(data) or "").splitlines()
