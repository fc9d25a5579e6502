"""What a test run prints, in the words of one pytest release whichever release is installed.

The agent reads pytest's output (``run_tests``, a macro's validation) and every run record keeps the
verifier's, so the same failure, worded differently by another pytest, would move a run's tokens
and records with the installed version rather than with the code. The committed baseline, the
router and the bundled model's recorded answers were made under pytest ``REFERENCE``, so the older
wordings are mapped onto its wording, never the reverse: what pytest ``REFERENCE`` prints passes
through unchanged. Measured on the benchmark's matrix and on a probe suite under pytest 8.4.2,
9.0.3, 9.1.1 and 9.2.0; mapped:

- a failed ``pytest.raises(match=...)`` (or ``check=``): before 9.1, pytest also printed the
  exception raised in the block, and its own chain, then "During handling of the above exception,
  another exception occurred:"; 9.1 raises its ``AssertionError`` ``from None``, so the chain
  before it is dropped;
- ``DID NOT RAISE <class 'pkg.mod.Error'>`` (and ``any of (<class ...>, ...)``): 9.1 names the
  class, ``DID NOT RAISE Error``; also in a short test summary line, trimmed again to the line's
  width the way pytest trims it;
- ``...Full output truncated (N lines hidden), use '-vv' to show``: 9.2 drops the count;
- 8.4's `` Regex: ...`` / `` Input: ...`` under a failed match: 9.0 says `` Expected regex:`` /
  `` Actual message:``.

The Python a run uses words some of it differently too; the records were made under Python 3.11, so
newer wordings are mapped onto 3.11's:

- Python 3.13 underlines the context expression of a one-line ``with`` statement (``^^^``) when the
  exception comes from its ``__enter__`` or ``__exit__`` (a failed ``pytest.raises``, a ``mock.patch``
  that cannot find its target); 3.11 and 3.12 place that exception on the whole line and draw no
  underline. The underline goes where the traceback goes on into ``__enter__``/``__exit__``, or its
  exception is a failed ``pytest.raises``: an exception raised while the expression is evaluated is
  underlined by every Python, and keeps it.
- Python 3.13 moved ``pathlib``'s classes into ``pathlib._local``: an assertion's explanation names
  ``<class 'pathlib._local.Path'>`` where 3.11 says ``<class 'pathlib.Path'>``.

Not mapped, because the older text lacks what the newer one shows: the order of a dict's items in
a repr (pytest before 9.1 sorts the keys, 9.1 keeps insertion order, and a truncated repr loses
the rest); an explanation of 687 to 710 characters, which 9.2 truncates and 9.0 does not; a failed
``pytest.warns(match=...)`` (9.1 counts the warnings emitted); a summary line trimmed inside a
class name that the failures above do not name unambiguously; and under 8.4, the missing
``subtests`` fixture in "available fixtures" and the reason missing from an ``XPASS(strict)``
summary line.
Nor the frames of the standard library in a traceback (``.../lib/python3.12/importlib/__init__.py:90:
in import_module``, ``<frozen importlib._bootstrap>:1387``): their paths name where that Python is
installed and their line numbers its release, so they differ between two machines' 3.11 already. They
move a record's text, rarely its tokens; a baseline records the Python it was made with, and the gate
names it when runs differ (``core.environment``). Nor 3.12's suggestion after an ``AttributeError`` or a
``NameError`` (``. Did you mean: 'Deliverer'?``), which 3.11 does not show in pytest's output.

Only pytest's own lines are rewritten, each matched whole, so a test's own output is left alone. A
pytest run whose output a test puts in its assertion message (the verifier's check that the
project's suite passes) shows as lines behind ``E     ``; those lines are read the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

REFERENCE = "9.2.0"
"""The pytest whose words every run's output is given in."""

NESTED = "E     "
"""How a line of an assertion message past its first begins: where a nested pytest run's output shows."""

_MAX_DEPTH = 3

_DID_NOT_RAISE = re.compile(r"(?P<marker>E +)(?P<message>Failed: DID NOT RAISE .*)")
_CLASS = re.compile(r"<class '(?P<path>[^']+)'>")
_CLASSES = re.compile(r"any of \((?P<classes><class '[^']+'>(?:, <class '[^']+'>)+)\)")
_PATHLIB = re.compile(r"<class 'pathlib\._local\.(?P<name>\w+)'>")
_TRUNCATED = re.compile(r"(?P<marker>E +)\.\.\.Full output truncated \(\d+ lines? hidden\), use '-vv' to show")
_NO_MATCH = re.compile(r"(?P<marker>E +)AssertionError: Regex pattern did not match(?: the `[^`]*`)?\.")
_SUMMARY = re.compile(r"(?P<head>(?:FAILED|ERROR) \S.*?) - (?P<message>Failed: DID NOT RAISE .*)")

_SEPARATORS = frozenset(
    {
        "During handling of the above exception, another exception occurred:",
        "The above exception was the direct cause of the following exception:",
    }
)
_HEADER = re.compile(r"_+ (?P<title>(?=.*[^_ ]).*?) _+")
"""A failure's header, ``____ test_name ____`` (not the ``_ _ _`` between the entries of a long traceback)."""
_SECTION_END = re.compile(r"(?:=+|-+)(?: .* (?:=+|-+))?")
"""A section line of the report (``==== short test summary info ====``, ``---- Captured stdout call ----``)."""
_EXCEPTION = re.compile(r"E +(?=\S)")
_CARETS = re.compile(r"\s*[\^~]+\s*")
_RAISES_CALL = re.compile(r"\b(?:raises|RaisesExc)\(")
_RAISES_FAILURE = re.compile(
    r"AssertionError: (?:"
    r"Regex pattern did not match(?: the `[^`]*`)?\."
    r"|check .* did not return True"
    r"|Skipping \d+ identical (?:leading|trailing) characters in diff, use -v to show"
    r"|)"
)
"""The first line of the ``AssertionError`` that ``pytest.raises`` raises when the exception it caught
fails its ``match`` (stated, or as a diff for an escaped ``^...$`` pattern) or its ``check``."""


def normalise_wording(text: str) -> str:
    """``text``, a pytest run's output, as pytest ``REFERENCE`` words it (see the module's docstring)."""
    return "\n".join(_normalise(text.split("\n"), 0))


def _normalise(lines: list[str], depth: int) -> list[str]:
    if depth < _MAX_DEPTH:
        lines = list(_nested(lines, depth))
    renamed = _Renamed()
    lines = [_line(line, renamed) for line in lines]
    lines = _regex_and_input(lines)
    lines = _without_with_underlines(lines)
    lines = _without_raises_context(lines)
    return [_summary(line, renamed) for line in lines]


@dataclass
class _Renamed:
    """The ``DID NOT RAISE`` messages renamed in one run's output, for its short test summary."""

    messages: dict[str, str] = field(default_factory=dict)
    """Old wording -> new."""
    failures: dict[str, str] = field(default_factory=dict)
    """A failure's header (``test_name[param]``) -> the old wording of the last one renamed under it."""
    failure: str | None = None
    """The header of the failure being read."""


def _nested(lines: list[str], depth: int) -> Iterator[str]:
    """``lines`` with each run of lines behind ``NESTED`` read as a pytest run's output of its own."""
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and lines[end].startswith(NESTED):
            end += 1
        if end == start:
            yield lines[start]
            start += 1
            continue
        inner = _normalise([line[len(NESTED) :] for line in lines[start:end]], depth + 1)
        yield from (NESTED + line for line in inner)
        start = end


def _line(line: str, renamed: _Renamed) -> str:
    """A line of an exception: the class that did not raise by its name; a truncation without its count."""
    header = _HEADER.fullmatch(line)
    if header or _SECTION_END.fullmatch(line):
        renamed.failure = header["title"] if header else None
        return line
    match = _DID_NOT_RAISE.fullmatch(line)
    if match:
        message = _raise_message(match["message"])
        if message is None:
            return line
        renamed.messages[match["message"]] = message
        if renamed.failure is not None:
            renamed.failures[renamed.failure] = match["message"]
        return match["marker"] + message
    match = _TRUNCATED.fullmatch(line)
    if match:
        return match["marker"] + "...Full output truncated, use '-vv' to show"
    if _EXCEPTION.match(line):
        return _PATHLIB.sub(r"<class 'pathlib.\g<name>'>", line)
    return line


def _raise_message(message: str) -> str | None:
    """``Failed: DID NOT RAISE ...`` naming the classes as 9.1 does; None when it names none by their repr."""
    rest = message[len("Failed: DID NOT RAISE ") :]
    single = _CLASS.fullmatch(rest)
    if single:
        return f"Failed: DID NOT RAISE {_class_name(single['path'])}"
    several = _CLASSES.fullmatch(rest)
    if several:
        names = ", ".join(_class_name(path) for path in _CLASS.findall(several["classes"]))
        return f"Failed: DID NOT RAISE any of ({names})"
    return None


def _class_name(path: str) -> str:
    """``pkg.mod.Outer.Error`` or ``test_x.test_y.<locals>.Error``: the class's ``__name__``, ``Error``."""
    return path.rsplit(".", 1)[-1]


def _regex_and_input(lines: list[str]) -> list[str]:
    """8.4's two lines under a failed match, `` Regex: ...`` and `` Input: ...``, in 9.0's words."""
    out = list(lines)
    for index, line in enumerate(lines[:-2]):
        match = _NO_MATCH.fullmatch(line)
        if not match:
            continue
        marker = match["marker"]
        pattern, actual = lines[index + 1], lines[index + 2]
        if pattern.startswith(marker + " Regex: ") and actual.startswith(marker + " Input: "):
            out[index + 1] = marker + "  Expected regex: " + pattern[len(marker + " Regex: ") :]
            out[index + 2] = marker + "  Actual message: " + actual[len(marker + " Input: ") :]
    return out


_WITH = re.compile(r"(?P<indent> *)(?:async )?with (?P<expression>.+?)(?: as [\w.]+)?:")
_LOCATION = re.compile(r"\S.*:\d+: in (?P<function>\S+)")


def _without_with_underlines(lines: list[str]) -> list[str]:
    """Without 3.13's underline of a ``with`` statement's context expression under an exception of its
    ``__enter__`` or ``__exit__`` (see the module's docstring)."""
    return [
        line
        for index, line in enumerate(lines)
        if not (0 < index < len(lines) - 1 and _enter_or_exit_underline(lines[index - 1], line, lines[index + 1]))
    ]


def _enter_or_exit_underline(source: str, line: str, following: str) -> bool:
    statement = _WITH.fullmatch(source)
    if statement is None or not _CARETS.fullmatch(line):
        return False
    start = len(statement["indent"]) + len("with ")
    if line.rstrip() != " " * start + "^" * len(statement["expression"]):
        return False
    location = _LOCATION.fullmatch(following)
    if location is not None:
        return location["function"] in ("__enter__", "__exit__")
    marker = _EXCEPTION.match(following)
    message = following[marker.end() :] if marker else ""
    raised = _RAISES_FAILURE.fullmatch(message) or message.startswith("Failed: DID NOT RAISE ")
    return bool(raised) and _RAISES_CALL.search(statement["expression"]) is not None


def _without_raises_context(lines: list[str]) -> list[str]:
    """Each failure without the exceptions chained before a failed ``pytest.raises`` (9.1 raises it ``from None``).

    A failure is its header, then its exceptions, each but the first after a separator line. When
    one of them is the ``AssertionError`` of a failed ``pytest.raises``, the lines from the header
    to the separator before it go: what is left is what 9.1 prints, in the short traceback and in
    the long one alike.
    """
    out: list[str] = []
    index = 0
    while index < len(lines):
        if not _HEADER.fullmatch(lines[index]):
            out.append(lines[index])
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not _HEADER.fullmatch(lines[end]) and not _SECTION_END.fullmatch(lines[end]):
            end += 1
        out.extend(_failure(lines[index:end]))
        index = end
    return out


def _failure(section: list[str]) -> list[str]:
    separators = [i for i, line in enumerate(section) if line in _SEPARATORS]
    bounds = separators + [len(section)]
    for k in range(len(separators) - 1, -1, -1):
        if _is_raises_failure(section[separators[k] + 1 : bounds[k + 1]]):
            return section[:1] + section[separators[k] + 1 :]
    return section


def _is_raises_failure(exception: list[str]) -> bool:
    """Whether this exception of a chain is a failed ``pytest.raises``: its first ``E`` line is one of the
    ``AssertionError``s that ``pytest.raises`` raises, and the source line above it calls ``raises(``."""
    for index, line in enumerate(exception):
        marker = _EXCEPTION.match(line)
        if marker is None:
            continue
        if not _RAISES_FAILURE.fullmatch(line[marker.end() :]):
            return False
        if line[marker.end() :] == "AssertionError: ":  # a diff follows: ``- expected`` first
            following = exception[index + 1] if index + 1 < len(exception) else ""
            if not following.startswith(marker.group() + "- "):
                return False
        source = next((s for s in reversed(exception[:index]) if not _CARETS.fullmatch(s)), "")
        return _RAISES_CALL.search(source) is not None
    return False


def _summary(line: str, renamed: _Renamed) -> str:
    """A short test summary line whose message is a ``DID NOT RAISE`` renamed above, in 9.1's words.

    pytest trims a summary line's message to the terminal's width (``...``), so a trimmed line is as
    wide as the terminal: the new message is trimmed again to that width. The message a trimmed line
    stood for is the one renamed under the same test's failure above (or the only one renamed that
    it could be); a line that could stand for several is left as it is.
    """
    match = _SUMMARY.fullmatch(line)
    if not match:
        return line
    shown = match["message"]
    new = _raise_message(shown)
    if new is not None:  # shown whole: the new message is shorter, so it is shown whole too
        return f"{match['head']} - {new}"
    if not shown.endswith("...") or not line.isascii():
        return line
    start = shown[: -len("...")]
    own = renamed.failures.get(_failure_title(match["head"]), "")
    if own.startswith(start) and own in renamed.messages:
        candidates = {renamed.messages[own]}
    else:
        candidates = {after for before, after in renamed.messages.items() if before.startswith(start)}
    if len(candidates) != 1:
        return line
    trimmed = _trimmed(candidates.pop(), len(line) - len(match["head"]))
    return match["head"] + trimmed if trimmed is not None else line


def _failure_title(head: str) -> str:
    """The header of the failure that a summary line (``FAILED path::Class::test[param]``) names."""
    word, _, node = head.partition(" ")
    title = node.partition("::")[2].replace("::", ".")
    return f"ERROR at setup of {title}" if word == "ERROR" else title


def _trimmed(message: str, width: int) -> str | None:
    """`` - message`` in ``width`` characters, as pytest's terminal reporter trims it (``_format_trimmed``)."""
    if len(" - ") + len("...") > width:
        return None
    if len(" - ") + len(message) > width:
        width -= len("...")
        message = message[: max(0, width - len(" - "))] + "..."
    return " - " + message
