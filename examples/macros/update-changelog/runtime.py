"""update_changelog: insert an entry under the top version heading of CHANGELOG.md."""

from __future__ import annotations

import re

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import test_problems

CHANGELOG = "CHANGELOG.md"
BULLET = re.compile(r"^([-*]) (.*?)\s*$")


def _lines(ctx: MacroContext) -> list[str]:
    text = ctx.path(CHANGELOG).read_text(encoding="utf-8")
    return (text if text.endswith("\n") or not text else text + "\n").splitlines(keepends=True)


def _top_version(lines: list[str]) -> tuple[int, int] | None:
    top = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
    if top is None:
        return None
    end = next((i for i in range(top + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return top, end


def _entries(lines: list[str], span: tuple[int, int]) -> list[str]:
    return [m.group(2) for line in lines[span[0] + 1 : span[1]] if (m := BULLET.match(line))]


def preconditions(ctx: MacroContext) -> list[str]:
    if not ctx.path(CHANGELOG).is_file():
        return [f"there is no {CHANGELOG}"]
    lines = _lines(ctx)
    span = _top_version(lines)
    if span is None:
        return [f"{CHANGELOG} has no '## ' version heading"]
    if ctx.args["entry"].strip() in _entries(lines, span):
        return [f"the top version of {CHANGELOG} ({lines[span[0]].strip()}) already lists the entry"]
    return []


def _list_end(lines: list[str], start: int, end: int) -> tuple[int, str] | None:
    """Where the first bullet list in lines[start:end] ends, and its marker."""
    first = next((i for i in range(start, end) if BULLET.match(lines[i])), None)
    if first is None:
        return None
    last = first
    for i in range(first + 1, end):
        if BULLET.match(lines[i]) or (lines[i].startswith((" ", "\t")) and lines[i].strip()):
            last = i
        else:
            break
    return last + 1, BULLET.match(lines[first]).group(1)


def run(ctx: MacroContext) -> str:
    entry, section = ctx.args["entry"].strip(), ctx.args.get("section")
    lines = _lines(ctx)
    span = _top_version(lines)
    if span is None:
        raise MacroError(f"{CHANGELOG} has no '## ' version heading")
    top, end = span
    start, stop, where = top + 1, end, lines[top].strip()
    if section:
        heading = next((i for i in range(top + 1, end) if lines[i].strip().lower() == f"### {section}".lower()), None)
        if heading is None:
            lines[top + 1 : top + 1] = ["\n", f"### {section}\n", "\n", f"- {entry}\n"]
            ctx.path(CHANGELOG).write_text("".join(lines), encoding="utf-8")
            return f"added a '### {section}' list with the entry under {where} in {CHANGELOG}"
        start = heading + 1
        stop = next((i for i in range(start, end) if lines[i].startswith("#")), end)
        where = f"{where} / {lines[heading].strip()}"
    found = _list_end(lines, start, stop)
    if found is None:
        lines[start:start] = ["\n", f"- {entry}\n"]
    else:
        at, marker = found
        lines.insert(at, f"{marker} {entry}\n")
    ctx.path(CHANGELOG).write_text("".join(lines), encoding="utf-8")
    return f"added the entry under {where} in {CHANGELOG}"


def validate(ctx: MacroContext) -> list[str]:
    lines = _lines(ctx)
    span = _top_version(lines)
    if span is None or _entries(lines, span).count(ctx.args["entry"].strip()) != 1:
        return [f"the top version of {CHANGELOG} does not list the entry exactly once"]
    return test_problems(ctx)
