"""One example task built from a repository's own code and tests, proved honest before it is kept.

The repository as committed at HEAD becomes the task's fixture (a snapshot beside the task: a fixture may not hold
its own task, so the repository itself cannot be one). The bug is one of its functions returning ``None`` instead
of its result; the hidden verifier is a copy of a test file of the repository that calls that function. Candidates
are tried in a fixed order and the first that ``tasks check`` passes (the verifier fails before and passes after,
no cheating agent gets through) is kept, so the task is honest by construction, or there is none.
"""

from __future__ import annotations

import ast
import itertools
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import git
import yaml

from ..core.errors import InputError
from ..macros import MacroRegistry
from ..process.sandbox import Sandbox
from ..run.taskcheck import check_task_file

MAX_FILES = 2000
MAX_BYTES = 20_000_000
"""The largest repository snapshotted as the example's fixture: a copy beside the task is committed with it."""
TRIES = 8
"""Candidates checked before giving up (each check is about ten verifier runs)."""
LEFT_OUT = (".github", ".granularity")
BROKEN = "return None"


@dataclass(frozen=True)
class Candidate:
    """A function of ``module`` whose ``return`` on ``line`` (1-based) is to be lost, and a ``test`` file that
    calls it."""

    module: str
    function: str
    line: int
    test: str


def committed_files(root: Path, left_out: str) -> dict[str, bytes]:
    """The files of HEAD's tree, by POSIX path, except ``left_out`` (the tasks folder) and CI's own folders."""
    try:
        tree = git.Repo(root).head.commit.tree
    except ValueError:
        raise InputError(f"{root}: no commit yet; commit the code and its tests first") from None
    files = {
        str(blob.path): blob.data_stream.read()
        for blob in tree.traverse()
        if isinstance(blob, git.Blob) and PurePosixPath(str(blob.path)).parts[0] not in (left_out, *LEFT_OUT)
    }
    if len(files) > MAX_FILES or sum(map(len, files.values())) > MAX_BYTES:
        raise InputError(
            f"{root}: {len(files)} files at HEAD, more than an example's fixture copies"
            f" ({MAX_FILES} files, {MAX_BYTES // 1_000_000} MB)"
        )
    return files


def is_test(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def candidates(files: Mapping[str, bytes]) -> Iterator[Candidate]:
    """Functions that return a value on a line of its own, in source files, with a test file that names them."""
    tests = {path: text for path in sorted(files) if is_test(path) and (text := _text(files[path])) is not None}
    for path in sorted(files):
        name = PurePosixPath(path).name
        if not path.endswith(".py") or is_test(path) or name in ("conftest.py", "setup.py"):
            continue
        source = _text(files[path])
        tree = _parse(source) if source is not None else None
        if tree is None or source is None:
            continue
        for function in (n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")):
            line = _returned_line(function, source)
            calls = re.compile(rf"\b{re.escape(function.name)}\(")
            if line is not None:
                yield from (Candidate(path, function.name, line, t) for t, text in tests.items() if calls.search(text))


def example_task(
    root: Path, folder: Path, fixture_name: str, macros: MacroRegistry, sandbox: Sandbox
) -> tuple[Path, Candidate]:
    """Write the first honest candidate's task into ``folder`` (with its fixture under ``folder/fixtures``)."""
    files = committed_files(root, folder.name)
    tried = []
    for candidate in itertools.islice(candidates(files), TRIES):
        task = write_task(folder, fixture_name, files, candidate)
        check = check_task_file(task, macros, True, sandbox)
        if check.ok:
            return task, candidate
        tried.append(f"{candidate.module}:{candidate.function} with {candidate.test}: {check.problems[0]}")
        shutil.rmtree(task.parent)
    raise InputError(
        "no example task could be built from this repository: a function that returns a value, a test file that"
        " calls it and passes alone (no conftest.py, no settings, the repository root on sys.path), and fails when"
        " the function returns None" + "".join(f"\n  tried {line}" for line in tried)
    )


def write_task(folder: Path, fixture_name: str, files: Mapping[str, bytes], candidate: Candidate) -> Path:
    """The task's folder (its task.yaml returned) and, once, the fixture beside it."""
    fixture = folder / "fixtures" / fixture_name
    if not fixture.exists():
        for path, data in files.items():
            (fixture / path).parent.mkdir(parents=True, exist_ok=True)
            (fixture / path).write_bytes(data)
    task_id = re.sub(r"[^a-z0-9_-]", "-", f"restore-{candidate.function}".lower())
    here = folder / task_id
    source = files[candidate.module].decode()
    lines = source.splitlines(keepends=True)
    original = lines[candidate.line - 1]
    indent = original[: len(original) - len(original.lstrip())]
    lines[candidate.line - 1] = f"{indent}{BROKEN}\n"
    for part, text in (("setup", "".join(lines)), ("solution", source)):
        (here / part / candidate.module).parent.mkdir(parents=True, exist_ok=True)
        (here / part / candidate.module).write_text(text, encoding="utf-8")
    (here / "verifier").mkdir()
    (here / "verifier" / PurePosixPath(candidate.test).name).write_bytes(files[candidate.test])
    document = {
        "id": task_id,
        "family": "simple",
        "prompt": f"`{candidate.function}` in {candidate.module} returns None instead of its result, and the tests"
        f" in {candidate.test} fail. Fix it.\n",
        "fixture": fixture_name,
        "setup": "setup/",
        "tests": [candidate.test],
        "solution": {"overlay": "solution/"},
        "verifier": {"tests": "verifier/"},
        "macro": {
            "skill": "replace_and_verify",
            "args": {"files": [candidate.module], "old": BROKEN, "new": original.strip()},
        },
        "fit": "exact",
        "notes": "Written by granularity init from the repository at HEAD: an example to run and gate; edit or"
        " replace it with tasks of your own (docs/tasks.md).\n",
    }
    (here / "task.yaml").write_text(
        yaml.dump(document, Dumper=_TaskDumper, sort_keys=False, width=100), encoding="utf-8"
    )
    return here / "task.yaml"


class _TaskDumper(yaml.SafeDumper):
    """Writes text of several lines as a block (``prompt: |``), as a person writes a task file."""


_TaskDumper.add_representer(
    str,
    lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None),
)


def _returned_line(function: ast.FunctionDef, source: str) -> int | None:
    """The line of the function's first ``return VALUE`` that stands alone on its line, when losing it leaves
    ``return None`` once in the file (the macro's exact text)."""
    if BROKEN in source:
        return None
    lines = source.splitlines()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
            and node.lineno == node.end_lineno
            and lines[node.lineno - 1].strip().startswith("return ")
        ):
            return node.lineno
    return None


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None
