"""What names a moved module outside Python code, and the whole-name edits that keep it right.

A move changes the module's dotted name (``pkg.a`` -> ``pkg.sub.a``) and its path (``pkg/a.py``
-> ``pkg/sub/a.py``). Outside Python, the references a tool can check and rewrite are the
structured ones (what an IDE's "search in comments and strings" finds, less the sentences):

- packaging: ``pyproject.toml``, ``setup.cfg`` and ``MANIFEST.in`` (entry points such as
  ``pkg.a:main``, package lists, paths and globs); an explicit package list that names the old
  package also gets each package the move creates, since nothing else would ship it;
- documentation (``.md``, ``.rst``, ``.txt``): Sphinx and MyST directives and roles
  (``.. automodule:: pkg.a``, ``:func:`pkg.a.f```, ``{class}`~pkg.a.C```), code examples and
  their output (fenced or literal blocks, ``>>>`` lines), and links (``https://...#pkg.a.C``).

Every edit replaces a whole dotted name (not preceded by a word character or a dot, not followed
by a word character, so ``pkg.ab`` is never touched) or a whole path. A mention in running prose
is not placed: whether a sentence about where a module lives still holds after a move is a
judgement, so such a file is a refusal (worded as before this module existed, since agents and
the benchmark's recordings read it). Mentions in any other text file (data, configuration) are
refusals too, naming file and line. Changelogs and ``*.egg-info`` metadata record names as they
were: never edited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .rewrite import Move

TEXT_SUFFIXES = (".md", ".rst", ".txt", ".json", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".csv", ".in")
DOC_SUFFIXES = (".md", ".rst", ".txt")
PACKAGING = ("pyproject.toml", "setup.cfg", "MANIFEST.in")
HISTORY_FILES = ("CHANGELOG", "CHANGES", "HISTORY", "NEWS")

_DIRECTIVE = re.compile(r"^\s*(?:\.\. [\w:-]+::|```+\s*\{[\w:-]+\}|:{3,}\s*\{[\w:-]+\})")
_ROLE = re.compile(r"(?::[\w:+-]+:|\{[\w:+-]+\})`[^`]*`")
_URL = re.compile(r"https?://\S+")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class TextEdit:
    """One whole-name replacement on a line of a non-Python file, or (``old`` empty) a package list entry added
    after it; line numbers are the file's before the move (listed in the macro's result)."""

    rel: str
    line: int
    old: str
    new: str

    def describe(self) -> str:
        where = f"{self.rel}:{self.line}"
        return f"{where} {self.old} -> {self.new}" if self.old else f"{where} {self.new} added after it"


@dataclass
class TextPlan:
    """The edits a move makes outside Python, the new text of each file, and what it cannot place."""

    edits: list[TextEdit] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)


def plan(root: Path, move: Move, created: list[str], mirrors: Sequence[Move] = ()) -> TextPlan:
    """Every non-Python mention of the move's old name or path: edits for the structured ones, else refusals.

    ``created`` are the packages (dotted names) the move creates; ``mirrors`` the second moves of
    import hooks that mirror the package (their names are rewritten in the same pass).
    """
    from pytest_granularity.core.workspace import iter_files

    result = TextPlan()
    patterns = [p for m in (move, *mirrors) for p in _patterns(m)]
    for file in iter_files(root):
        rel = file.relative_to(root).as_posix()
        path = PurePosixPath(rel)
        if path.suffix not in TEXT_SUFFIXES or move.inside(rel) or records_history(rel):
            continue
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        kind = "packaging" if path.name in PACKAGING else "docs" if path.suffix in DOC_SUFFIXES else "other"
        if not any(p.search(text) for p, _ in patterns) and not (kind == "packaging" and created):
            continue
        _plan_file(result, rel, text, kind, patterns, move, created)
    return result


def records_history(rel: str) -> bool:
    """Generated packaging metadata and changelogs name modules as they were; they are not rewritten."""
    parts = PurePosixPath(rel).parts
    return any(p.endswith(".egg-info") for p in parts) or parts[-1].upper().startswith(HISTORY_FILES)


def apply(root: Path, text_plan: TextPlan) -> list[str]:
    """Write the planned files; the files written."""
    for rel, text in text_plan.texts.items():
        (root / rel).write_text(text, encoding="utf-8")
    return sorted(text_plan.texts)


def _patterns(move: Move) -> list[tuple[re.Pattern[str], str]]:
    """The whole-name patterns and their replacements: the dotted name (when it has a dot) and the path."""
    patterns = [(re.compile(rf"(?<![\w/.-]){re.escape(move.old_path)}(?!\w)"), move.new_path)] if move.old_path else []
    if "." in move.old:
        patterns.insert(0, (re.compile(rf"(?<![\w.]){re.escape(move.old)}(?!\w)"), move.new))
    return patterns


def _plan_file(
    result: TextPlan,
    rel: str,
    text: str,
    kind: str,
    patterns: list[tuple[re.Pattern[str], str]],
    move: Move,
    created: list[str],
) -> None:
    lines = text.splitlines(keepends=True)
    structured = _structured_lines(lines) if kind == "docs" else None
    edits: list[TextEdit] = []
    prose = False
    for number, line in enumerate(lines, 1):
        found = [(p, new) for p, new in patterns if p.search(line)]
        if not found:
            continue
        if kind == "other":
            result.refusals.append(
                f"{rel}:{number} names {move.old} in a file move_module does not rewrite (not packaging or docs)"
            )
            return
        if structured is not None and not structured[number - 1] and not _in_markup(line, found):
            prose = True
            continue
        for p, new in found:
            for match in p.finditer(line):
                edits.append(TextEdit(rel, number, match.group(0), new))
            line = p.sub(new.replace("\\", "\\\\"), line)
        lines[number - 1] = line
    if prose:
        result.refusals.append(_prose_refusal(rel, move))
        return
    if kind == "packaging":
        edits += [TextEdit(rel, n, "", name) for n, name in _list_new_packages(lines, move, created)]
    if edits:
        result.edits += edits
        result.texts[rel] = "".join(lines)


def _prose_refusal(rel: str, move: Move) -> str:
    """The refusal for a file that names the module in running prose (the words it always had)."""
    return f"{rel} (not Python) refers to {move.old}; move_module does not rewrite non-Python files"


def _structured_lines(lines: list[str]) -> list[bool]:
    """Per line, whether it is markup or code: a directive and its indented body, a fenced or literal block, ``>>>``."""
    marks, fence, block_indent = [], "", -1
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if fence:
            marks.append(True)
            if stripped.startswith(fence):
                fence = ""
            continue
        fenced = _FENCE.match(line)
        if fenced:
            fence = fenced.group(1)
            marks.append(True)
            continue
        if block_indent >= 0 and (not stripped or indent > block_indent):
            marks.append(True)
            continue
        block_indent = -1
        starts_block = bool(_DIRECTIVE.match(line)) or stripped.endswith("::")
        marks.append(starts_block or stripped.startswith((">>>", "... ")))
        if starts_block:
            block_indent = indent
    return marks


def _in_markup(line: str, found: list[tuple[re.Pattern[str], str]]) -> bool:
    """Whether every mention on a prose line sits inside a role or a URL."""
    spans = [m.span() for m in _ROLE.finditer(line)] + [m.span() for m in _URL.finditer(line)]
    return all(
        any(start <= m.start() and m.end() <= end for start, end in spans) for p, _ in found for m in p.finditer(line)
    )


_LIST_ENTRY = re.compile(r"""^(\s*)(["'])([\w.]+)\2(,?)\s*$""")
_PACKAGES_KEY = re.compile(r"^\s*packages\s*=\s*(.*?)\s*$")


def _list_new_packages(lines: list[str], move: Move, created: list[str]) -> list[tuple[int, str]]:
    """Each created package added to an explicit package list naming the old parent or package.

    A TOML list with one quoted entry per line gets the new entries after that one (``lines`` is
    edited in place; the (line number, package) pairs added are returned). Discovery (``find:``,
    ``packages.find``) needs nothing. Any other explicit form (one line, a ``setup.cfg`` list) is
    left as it is, as before: the benchmark's hookshot fixture lists its packages on one line and its
    recorded move calls leave it alone (a known gap, said in docs/macros-on-real-code.md).
    """
    for start, line in enumerate(lines):
        key = _PACKAGES_KEY.match(line)
        if not created or not key or key.group(1).startswith("find"):
            continue
        value = _value_lines(lines, start, key.group(1))
        names = {m.group(3): n for n in value if (m := _LIST_ENTRY.match(lines[n]))}
        listed = [n for name, n in names.items() if name in (move.parent, move.old, move.new)]
        if key.group(1) != "[" or len(names) != len(value) - 2:
            return []
        if listed:
            return _insert_entries(lines, listed[0], [p for p in created if p not in names])
    return []


def _value_lines(lines: list[str], start: int, first: str) -> list[int]:
    """The line numbers (0-based) of a key's value: a bracketed list to its ``]``, or indented continuation lines."""
    if first == "[":
        end = next((n for n in range(start + 1, len(lines)) if lines[n].strip().startswith("]")), len(lines) - 1)
        return list(range(start, end + 1))
    end = start + 1
    while end < len(lines) and lines[end].strip() and lines[end][:1].isspace():
        end += 1
    return list(range(start, end))


def _insert_entries(lines: list[str], anchor: int, names: list[str]) -> list[tuple[int, str]]:
    match = _LIST_ENTRY.match(lines[anchor])
    assert match is not None, "the anchor is a list entry"
    indent, quote, _, comma = match.groups()
    for offset, name in enumerate(names):
        lines.insert(anchor + 1 + offset, f"{indent}{quote}{name}{quote}{comma or ','}\n")
    return [(anchor + 1, name) for name in names]
