"""set_ini_option: set one option in an existing section of an INI file, keeping every other line."""

from __future__ import annotations

import configparser
import re

from pytest_granularity import MacroContext, MacroError
from pytest_granularity.macros.checks import test_problems
from pytest_granularity.macros.kit import existing_file

HEADER = re.compile(r"\[(?P<header>.+)\]")
OPTION = re.compile(r"(?P<key>[^=:\s][^=:]*?)\s*[=:][ \t]*")


def preconditions(ctx: MacroContext) -> list[str]:
    rel, section = ctx.args["file"], ctx.args["section"]
    path, reasons = existing_file(ctx, rel)
    if path is None:
        return reasons
    try:
        parser = _parser(ctx)
    except configparser.Error as exc:
        return [f"{rel} is not a valid INI file: {exc}"]
    if not parser.has_section(section):
        return [f"{rel} has no section [{section}] (known: {', '.join(parser.sections()) or 'none'})"]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if sum(1 for line in lines if _header(line) == section) != 1:
        return [f"the header [{section}] is not written on exactly one unindented line of {rel}"]
    return []


def run(ctx: MacroContext) -> str:
    path = ctx.path(ctx.args["file"])
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    section, option, value = ctx.args["section"], ctx.args["option"], ctx.args["value"]
    starts = [i for i, line in enumerate(lines) if _header(line) == section]
    if len(starts) != 1:
        raise MacroError(f"{ctx.args['file']} changed while the macro ran: the header [{section}] is gone")
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if _header(lines[i]) is not None), len(lines))
    for i in range(start + 1, end):
        match = _option(lines[i])
        if match and match.group("key").strip().lower() == option.lower():
            stop = i + 1
            while stop < end and lines[stop].strip() and lines[stop][0] in " \t":
                stop += 1  # continuation lines of a multi-line value
            lines[i:stop] = [f"{match.group(0)}{value}\n"]
            path.write_text("".join(lines), encoding="utf-8")
            return f"changed {option} in [{section}] of {ctx.args['file']} to {value}"
    last = max((i for i in range(start, end) if lines[i].strip()), default=start)
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    lines.insert(last + 1, f"{option} = {value}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return f"added {option} = {value} to [{section}] of {ctx.args['file']}"


def validate(ctx: MacroContext) -> list[str]:
    try:
        parser = _parser(ctx)
    except configparser.Error as exc:
        return [f"{ctx.args['file']} no longer parses as INI: {exc}"]
    section, option = ctx.args["section"], ctx.args["option"]
    if parser.get(section, option, fallback=None) != ctx.args["value"].strip():
        return [f"{ctx.args['file']} does not set {option} = {ctx.args['value']} in [{section}]"]
    return test_problems(ctx)


def _parser(ctx: MacroContext) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=True)
    parser.read_string(ctx.path(ctx.args["file"]).read_text(encoding="utf-8"), source=ctx.args["file"])
    return parser


def _header(line: str) -> str | None:
    if not line.startswith("["):
        return None
    match = HEADER.match(line.strip())
    return match.group("header") if match else None


def _option(line: str) -> re.Match[str] | None:
    if not line.strip() or line[0] in " \t#;[":
        return None
    return OPTION.match(line)
