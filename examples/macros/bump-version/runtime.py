"""bump_version: change the project version in pyproject.toml and in the extra files named."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import syntax_problems, test_problems
from pytest_granularity.macros.kit import existing_file

PYPROJECT = "pyproject.toml"
_PROJECT_HEADER = re.compile(r"^\[project\][ \t]*(#.*)?$", re.M)
_NEXT_HEADER = re.compile(r"^[ \t]*\[", re.M)


def _whole(version: str) -> re.Pattern[str]:
    """The version as a whole: not inside 11.4.2, 1.4.20 or 1.4.2rc1."""
    return re.compile(r"(?<![0-9.])" + re.escape(version) + r"(?![.+-]?[0-9A-Za-z])")


def _project_span(text: str) -> tuple[int, int] | None:
    header = _PROJECT_HEADER.search(text)
    if header is None:
        return None
    following = _NEXT_HEADER.search(text, header.end())
    return header.end(), following.start() if following else len(text)


def _version_line(version: str) -> re.Pattern[str]:
    return re.compile(r"^([ \t]*version[ \t]*=[ \t]*)([\"'])" + re.escape(version) + r"\2", re.M)


def _pyproject_version(text: str) -> tuple[object, list[Any]]:
    project = tomllib.loads(text).get("project", {})
    return project.get("version"), project.get("dynamic", [])


def preconditions(ctx: MacroContext) -> list[str]:
    old, new = ctx.args["old"], ctx.args["new"]
    reasons = []
    if old == new:
        reasons.append("new is the same version as old")
    path = ctx.path(PYPROJECT)
    if not path.is_file():
        return reasons + [f"{PYPROJECT} does not exist"]
    text = path.read_text(encoding="utf-8")
    try:
        version, dynamic = _pyproject_version(text)
    except tomllib.TOMLDecodeError as exc:
        return reasons + [f"{PYPROJECT} does not parse ({exc})"]
    if "version" in dynamic:
        reasons.append(f"{PYPROJECT} declares the version dynamic")
    elif version != old:
        reasons.append(f"the [project] version in {PYPROJECT} is {version!r}, not {old!r}")
    else:
        span = _project_span(text)
        lines = len(_version_line(old).findall(text[span[0] : span[1]])) if span else 0
        if lines != 1:
            reasons.append(f'[project] in {PYPROJECT} has no plain line version = "{old}"')
    for rel in ctx.args.get("files", []):
        extra, missing = existing_file(ctx, rel)
        if rel == PYPROJECT:
            reasons.append(f"{PYPROJECT} is always changed; do not list it in files")
        elif extra is None:
            reasons += missing
        else:
            count = len(_whole(old).findall(extra.read_text(encoding="utf-8")))
            if count != 1:
                reasons.append(f"{rel} holds the version {old} {count} times (it must hold it exactly once)")
    return reasons


def run(ctx: MacroContext) -> str:
    old, new = ctx.args["old"], ctx.args["new"]
    path = ctx.path(PYPROJECT)
    text = path.read_text(encoding="utf-8")
    span = _project_span(text)
    if span is None:
        raise MacroError(f"{PYPROJECT} has no [project] table")
    section, count = _version_line(old).subn(
        lambda m: m.group(1) + m.group(2) + new + m.group(2), text[span[0] : span[1]], count=1
    )
    if count != 1:
        raise MacroError(f"{PYPROJECT} changed while the bump was under way")
    path.write_text(text[: span[0]] + section + text[span[1] :], encoding="utf-8")
    files = ctx.args.get("files", [])
    for rel in files:
        extra = ctx.path(rel)
        content, count = _whole(old).subn(new, extra.read_text(encoding="utf-8"))
        if count != 1:
            raise MacroError(f"{rel} changed while the bump was under way")
        extra.write_text(content, encoding="utf-8")
    return f"bumped the version from {old} to {new} in {PYPROJECT} and {len(files)} other file(s)"


def validate(ctx: MacroContext) -> list[str]:
    old, new = ctx.args["old"], ctx.args["new"]
    files = ctx.args.get("files", [])
    problems = []
    try:
        version, _ = _pyproject_version(ctx.path(PYPROJECT).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        return [f"{PYPROJECT} no longer parses ({exc})"]
    if version != new:
        problems.append(f"the [project] version in {PYPROJECT} is {version!r}, not {new!r}")
    for rel in files:
        content = ctx.path(rel).read_text(encoding="utf-8")
        if _whole(old).search(content) or not _whole(new).search(content):
            problems.append(f"{rel} does not hold the version {new} (or still holds {old})")
    problems += syntax_problems(ctx, [f for f in files if f.endswith(".py")])
    return problems or test_problems(ctx)
