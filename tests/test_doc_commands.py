"""Every shell command the README and the getting-started page show runs as written from a clone.

Commands in ```bash blocks are checked against what would run them, without running them:
``pip install`` must install this clone with extras ``pyproject.toml`` defines (a package name
would fetch a release, not the clone); ``pytest`` is parsed and configured by pytest itself with
the plugin, stopping before collection (``tests/doc_command_probe.py``); ``granularity`` is parsed
by the command's own parser. A comment line ``# needs: ...`` marks the next command as needing what
a test does not have (a model server, a remote): it is parsed only, never configured. Any other
program is an error until this file learns to check it.

The tutorial's ```console blocks run for real, in order, in a copy of what a clone holds, after
its files (a bold path caption, then a code block) are written; each output line the page shows,
less ``...``, must appear in what the command printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from unittest import mock

import pytest
from conftest import REPO
from packaging.requirements import Requirement

from pytest_granularity import cli

DOCUMENTS = ("README.md", "docs/getting-started.md")
TUTORIAL = REPO / "docs" / "getting-started.md"
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$", re.S | re.M)
NEEDS = "# needs:"
EXTRAS: dict[str, list[str]] = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
PIP_OPTIONS = {"-e", "--editable", "-q", "--quiet", "-U", "--upgrade"}
SEPARATORS = {"&&", ";"}


@dataclass(frozen=True)
class Command:
    """One simple command of a documented shell line, and what its block installed before it."""

    where: str
    words: tuple[str, ...]
    line: str
    needs: str | None
    extras: frozenset[str]


def _blocks(text: str, lang: str) -> Iterator[tuple[int, str]]:
    """``(line number, body)`` of every fenced block in ``lang``."""
    for match in FENCE.finditer(text):
        if match["lang"] == lang:
            yield text.count("\n", 0, match.start()) + 2, match["body"]


def _lines(body: str) -> Iterator[tuple[int, str]]:
    """A block's logical lines (continuations joined), with their offset in the block."""
    pending, start = "", 0
    for offset, raw in enumerate(body.splitlines()):
        if not pending:
            start = offset
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        yield start, pending + raw
        pending = ""


def _simple_commands(line: str) -> list[list[str]]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for word in lexer:
        if word in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def documented_commands() -> list[Command]:
    found = []
    for name in DOCUMENTS:
        for first, body in _blocks((REPO / name).read_text(), "bash"):
            needs, extras = None, frozenset[str]()
            for offset, line in _lines(body):
                if line.startswith(NEEDS):
                    needs = line[len(NEEDS) :].strip()
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                for words in _simple_commands(line):
                    found.append(Command(f"{name}:{first + offset} {words[0]}", tuple(words), line, needs, extras))
                    extras |= _installed_extras(words)
                needs = None
    return found


def _program(words: tuple[str, ...]) -> tuple[str, list[str]]:
    """The program a command runs (``python -m X`` runs X) and its arguments."""
    if words[0] in ("python", "python3") and len(words) > 2 and words[1] == "-m":
        return words[2], list(words[3:])
    return words[0], list(words[1:])


def _installed_extras(words: tuple[str, ...]) -> frozenset[str]:
    program, args = _program(words)
    if program != "pip" or not args or args[0] != "install":
        return frozenset()
    return frozenset(e for spec in args[1:] if not spec.startswith("-") for e in _clone_extras(spec))


def _clone_extras(spec: str) -> list[str]:
    match = re.fullmatch(r"\.(?:\[(?P<extras>[a-z0-9_,-]+)\])?", spec)
    assert match, f"pip install {spec} does not install this clone: from a clone it is '.[EXTRAS]'"
    return match["extras"].split(",") if match["extras"] else []


def check_pip(args: list[str]) -> None:
    assert args and args[0] == "install", f"only pip install is documented, not pip {' '.join(args)}"
    unknown_options = [a for a in args[1:] if a.startswith("-") and a not in PIP_OPTIONS]
    assert not unknown_options, f"pip options this test does not know: {unknown_options}"
    specs = [a for a in args[1:] if not a.startswith("-")]
    assert specs, "pip install with nothing to install"
    for spec in specs:
        unknown = sorted(set(_clone_extras(spec)) - EXTRAS.keys())
        assert not unknown, f"{spec}: pyproject.toml defines no extra {unknown}; it has {sorted(EXTRAS)}"


def _missing_extras(extras: frozenset[str]) -> list[str]:
    """The extras whose requirements are not all installed here."""
    missing = []
    for extra in sorted(extras):
        for requirement in EXTRAS[extra]:
            try:
                metadata.distribution(Requirement(requirement).name)
            except metadata.PackageNotFoundError:
                missing.append(extra)
                break
    return missing


def check_pytest(args: list[str], mode: str, cwd: Path = REPO) -> None:
    env = {**os.environ, "DOC_COMMAND_PROBE": mode}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "tests"), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "doc_command_probe"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"pytest {' '.join(args)}:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"


class _Parsed(Exception):
    """Raised once the ``granularity`` command's parser accepted the arguments."""


def check_granularity(args: list[str]) -> argparse.Namespace:
    """Parse ``args`` with the command's own parser, and stop before the command does anything."""
    parse_args = argparse.ArgumentParser.parse_args
    parsed: list[argparse.Namespace] = []

    def parse_only(self: argparse.ArgumentParser, *a: object, **k: object) -> argparse.Namespace:
        parsed.append(parse_args(self, *a, **k))  # type: ignore[arg-type]
        raise _Parsed

    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_only), pytest.raises(_Parsed):
        cli.main(args)
    return parsed[0]


def unique(commands: list[Command]) -> list[Command]:
    """One check per distinct command (the README and the tutorial share some), named by every place it is shown."""
    places: dict[tuple[tuple[str, ...], bool], list[Command]] = {}
    for command in commands:
        places.setdefault((command.words, bool(command.needs)), []).append(command)
    return [
        dataclasses.replace(
            same[0], where=", ".join(c.where for c in same), extras=frozenset().union(*(c.extras for c in same))
        )
        for same in places.values()
    ]


COMMANDS = unique(documented_commands())


@pytest.mark.parametrize("command", COMMANDS, ids=[c.where for c in COMMANDS])
def test_a_documented_command_runs_as_written_from_a_clone(command: Command) -> None:
    if command.needs:
        subprocess.run(["bash", "-n", "-c", command.line], check=True)
    program, args = _program(command.words)
    if program == "pip":
        check_pip(args)
    elif program == "pytest":
        missing = _missing_extras(command.extras)
        if missing and not command.needs:
            pytest.skip(
                f"{command.where} runs after installing the {', '.join(missing)} extra: pip install -e '.[{','.join(missing)}]'"
            )
        check_pytest(args, "parse" if command.needs else "configure")
    elif program == "granularity":
        check_granularity(args)
    else:
        assert command.needs, f"{command.where}: no check for {program!r}: mark it '{NEEDS} ...' or teach this test"


def test_the_commands_are_found() -> None:
    """The extraction itself: the README's two commands, joined lines, and the marks."""
    by_line = {" ".join(c.words): c for c in COMMANDS}
    assert "pip install .[parallel]" in by_line
    first = by_line["pytest benchmark_tasks --granularity=hybrid -n 2 --dist loadfile"]
    assert first.where == "README.md:21 pytest, docs/getting-started.md:21 pytest"
    suite = by_line["python -m pytest -n 2"]
    assert suite.extras == {"parallel", "test", "plot", "local"}
    replay = next(c for c in COMMANDS if "--granularity-model-cache-mode=replay" in c.words)
    assert replay.needs and replay.words[-1] == "--granularity-model-cache-mode=replay"


@pytest.mark.parametrize(
    ("line", "needs", "problem"),
    [
        ("pip install 'pytest-granularity[model]'", None, "does not install this clone"),
        ("pip install '.[nosuch]'", None, "defines no extra"),
        ("pytest benchmark_tasks --granularity=nosuch", None, "unknown policy"),
        ("pytest benchmark_tasks --granularity-nosuch", None, "unrecognized arguments"),
        ("pytest no_such_folder --granularity=micro", "a marked command's paths are checked too", "no such path"),
        ("granularity report", None, "required: path"),
        ("make docs", None, "no check for 'make'"),
    ],
)
def test_a_wrong_command_fails_the_check(
    line: str, needs: str | None, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (words,) = _simple_commands(line)
    command = Command("test", tuple(words), line, needs, frozenset())
    with pytest.raises((AssertionError, SystemExit)) as caught:
        test_a_documented_command_runs_as_written_from_a_clone(command)
    assert problem in str(caught.value) + capsys.readouterr().err


CAPTION = re.compile(r"^\*\*`(?P<path>[^`]+)`\*\*\n\n```[a-z]*\n(?P<body>.*?)^```$", re.S | re.M)


def tutorial_files(text: str) -> dict[str, str]:
    """The files the tutorial asks the reader to write: a bold path caption, then a code block."""
    return {m["path"]: m["body"] for m in CAPTION.finditer(text)}


def tutorial_sessions(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each ``$ command`` of the tutorial's console blocks, with the output lines shown under it."""
    for _, body in _blocks(text, "console"):
        for chunk in body.split("$ ")[1:]:
            command, *shown = chunk.rstrip("\n").split("\n")
            yield command, [line for line in shown if line != "..."]


def _executable(words: list[str]) -> list[str]:
    """This environment's python for ``pytest``, its ``granularity`` script for ``granularity``."""
    if words[0] == "pytest":
        return [sys.executable, "-m", "pytest", *words[1:]]
    assert words[0] == "granularity", f"the tutorial runs only pytest and granularity, not {words[0]}"
    return [str(Path(sys.executable).with_name("granularity")), *words[1:]]


def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    """Write the tutorial's task into a copy of what a clone holds, run each command, compare the output."""
    text = TUTORIAL.read_text()
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    shutil.copytree(REPO / "fixtures" / "textkit", tmp_path / "fixtures" / "textkit")
    files = tutorial_files(text)
    assert "my_tasks/textkit-shout/task.yaml" in files
    for path, body in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    sessions = list(tutorial_sessions(text))
    assert len(sessions) == 5
    for command, shown in sessions:
        result = subprocess.run(
            _executable(shlex.split(command)), cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        printed = result.stdout + result.stderr
        expected = 1 if any(" failed" in line for line in shown) else 0
        assert result.returncode == expected, f"$ {command}\n{printed[-4000:]}"
        for line in shown:
            assert any(line.strip() in out for out in printed.splitlines()), f"$ {command}: no {line!r} in\n{printed}"
