"""update_readme_section: replace the body of one named heading section in README.md."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import test_problems

README = "README.md"
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Heading:
    index: int
    level: int
    text: str


def headings(lines: list[str]) -> list[Heading]:
    """ATX headings outside fenced code blocks."""
    found, fence = [], None
    for index, line in enumerate(lines):
        opening = FENCE.match(line)
        if fence is not None:
            if (
                opening
                and opening.group(1)[0] == fence[0]
                and len(opening.group(1)) >= len(fence)
                and not line.strip().strip(fence[0])
            ):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        match = ATX.match(line.rstrip("\n"))
        if match:
            found.append(Heading(index, len(match.group(1)), (match.group(2) or "").strip()))
    return found


def preconditions(ctx: MacroContext) -> list[str]:
    path = ctx.path(README)
    if not path.is_file():
        return [f"there is no {README} at the workspace root"]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    matches = [h for h in headings(lines) if h.text == ctx.args["heading"]]
    if len(matches) != 1:
        return [f"{README} has {len(matches)} headings titled {ctx.args['heading']!r} (it must have exactly one)"]
    nested = [h.text for h in headings(_body_lines(ctx.args["body"])) if h.level <= matches[0].level]
    if nested:
        return [
            f"the new body holds heading(s) {nested} of the section's level or higher; they would split the section"
        ]
    return []


def run(ctx: MacroContext) -> str:
    path = ctx.path(README)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start, end = _section(lines, ctx.args["heading"])
    body = _body_lines(ctx.args["body"])
    blank_after = ["\n"] if end < len(lines) else []
    path.write_text(
        "".join(lines[: start + 1] + ["\n"] + body + (blank_after if body else []) + lines[end:]), encoding="utf-8"
    )
    return (
        f"replaced the body of the section {ctx.args['heading']!r} in {README}"
        f" ({end - start - 1} lines -> {len(body)} lines)"
    )


def validate(ctx: MacroContext) -> list[str]:
    lines = ctx.path(README).read_text(encoding="utf-8").splitlines(keepends=True)
    try:
        start, end = _section(lines, ctx.args["heading"])
    except MacroError as exc:
        return [str(exc)]
    if "".join(lines[start + 1 : end]).strip("\n") != "".join(_body_lines(ctx.args["body"])).strip("\n"):
        return [f"the section {ctx.args['heading']!r} in {README} does not hold the new body"]
    return test_problems(ctx)


def _section(lines: list[str], title: str) -> tuple[int, int]:
    """The heading's line index and the index where its section ends (the next heading of its level or higher)."""
    found = headings(lines)
    matches = [h for h in found if h.text == title]
    if len(matches) != 1:
        raise MacroError(f"{README} no longer has exactly one heading titled {title!r}")
    heading = matches[0]
    later = [h.index for h in found if h.index > heading.index and h.level <= heading.level]
    return heading.index, later[0] if later else len(lines)


def _body_lines(body: str) -> list[str]:
    text = body.strip("\n")
    return [line + "\n" for line in text.split("\n")] if text.strip() else []
