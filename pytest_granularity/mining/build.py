"""A candidate written as an ordinary task folder: a person can read it, edit it and commit it.

The fixture is the repository at the parent commit (``fixture`` + ``fixture_ref``: no copy of it per
task); ``solution/`` holds the commit's files outside the tests and ``solution.delete`` what it
removed; ``verifier/`` holds the commit's whole test tree (test files, their helpers, data files and
``conftest.py`` files, as the commit has them), run with its own conftests and none of the
workspace's, and ``verifier.select`` names the tests that decide.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..core.pytest_spec import PytestSpec
from ..core.test_layout import test_tree
from ..core.workspace import write_tree
from .history import Candidate, blobs

if TYPE_CHECKING:
    import git

MINED_BY = "granularity tasks mine"
VERIFIER_TIMEOUT = 120
ID_LIMIT = 80


def task_id(repo_name: str, found: Candidate, prompt: str) -> str:
    """``<repository>-<short sha>-<first words of the prompt>``, in the id's alphabet and length."""
    words = re.sub(r"[^a-z0-9]+", "-", prompt.split("\n", 1)[0].lower()).strip("-")
    name = re.sub(r"[^a-z0-9]+", "-", repo_name.lower()).strip("-") or "repo"
    return f"{name}-{found.short}-{words}"[:ID_LIMIT].rstrip("-_")


def tree_files(repo: git.Repo, sha: str) -> dict[str, bytes]:
    """Every file of the commit's tree (submodules, which have no content here, left out)."""
    return {str(blob.path): blob.data_stream.read() for blob in blobs(repo, sha)}


def solution_of(found: Candidate, after: Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The commit's change outside the tests: the files it adds or changes, and the paths it removes.

    A refactor's is the whole change: moving a module means rewriting every import of it, the tests' too,
    and its verifier is the project's own suite, which the moved tests are part of."""
    support = (lambda path: False) if found.refactor else found.layout.is_test_support
    overlay = {c.path: after[c.path] for c in found.changes if c.status != "D" and not support(c.path)}
    removed = [c.path for c in found.changes if c.status == "D" and not support(c.path)]
    removed += [c.old for c in found.changes if c.status == "R" and c.old and not support(c.old)]
    return overlay, sorted(set(removed))


def hidden_tree(found: Candidate, after: Mapping[str, bytes]) -> dict[str, bytes]:
    """The commit's test tree, as the verifier's files."""
    return {path: after[path] for path in test_tree(after, found.layout)}


def start_draft(
    folder: Path,
    *,
    fixture: Path,
    found: Candidate,
    prompt: str,
    family: str,
    overlay: Mapping[str, bytes],
    removed: list[str],
    hidden: Mapping[str, bytes],
    remote: str | None,
    spec: PytestSpec,
    generated: list[str],
    timeout: float = VERIFIER_TIMEOUT,
) -> dict[str, Any]:
    """Write the task's own folders (``solution/``, ``verifier/``), once, and return its file's data so far:
    what the tests decide (``decided``) comes later, and the file is written only when all is known."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if overlay:
        write_tree(folder / "solution", overlay)
    write_tree(folder / "verifier", hidden)
    solution: dict[str, Any] = {}
    if overlay:
        solution["overlay"] = "solution/"
    if removed:
        solution["delete"] = removed
    verifier: dict[str, Any] = {"tests": "verifier/", "timeout_seconds": timeout, "conftest": True}
    if found.layout.pythonpath:
        verifier["pythonpath"] = list(found.layout.pythonpath)
    data: dict[str, Any] = {
        "id": folder.name,
        "family": family,
        "prompt": prompt + "\n",
        "fixture": fixture_value(folder, fixture),
        "fixture_ref": found.parent,
        **({"fixture_generated": generated} if generated else {}),
        "solution": solution,
        "verifier": verifier,
        "pytest": spec.to_data(),
    }
    data["provenance"] = {
        **({"repository": remote} if remote else {}),
        "commit": found.sha,
        "date": found.date,
        "mined_by": MINED_BY,
    }
    return data


def decided(
    data: Mapping[str, Any], select: list[str], suite: list[str], family: str, macro: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The draft with what its runs decided: the hidden tests that decide, the project's tests that must keep
    passing, the family, and the reference macro call when one reproduces the commit."""
    verifier = dict(data["verifier"])
    verifier.pop("select", None)
    verifier.pop("suite", None)
    if select:
        verifier["select"] = select
    if suite:
        verifier["suite"] = suite
    done = {k: v for k, v in data.items() if k not in ("tests", "macro", "faults", "provenance")}
    done.update(family=family, verifier=verifier)
    if suite:
        done["tests"] = suite
    if macro is not None:
        done["macro"] = macro
        done["faults"] = ["early", "late"]
    done["provenance"] = data["provenance"]
    return done


def fixture_value(folder: Path, fixture: Path) -> str:
    """The fixture as a path relative to the task folder (``../..``), so the tasks and the repository move
    together; the task loader reads a value with a ``/`` or a leading ``.`` as a path."""
    rel = PurePosixPath(Path(os.path.relpath(fixture.resolve(), folder.resolve())).as_posix())
    text = str(rel)
    return text if "/" in text or text.startswith(".") else f"./{text}"


def family_of(found: Candidate) -> str:
    """refactor: renames and moves alone; simple: one source file; multi_file: more (docs/mining.md)."""
    if found.refactor:
        return "refactor"
    return "simple" if len(found.sources) <= 1 else "multi_file"


def remote_of(repo: git.Repo) -> str | None:
    """The repository's ``origin`` (or first) remote's address, for provenance; None when it has none."""
    remotes = list(repo.remotes)
    if not remotes:
        return None
    chosen = next((r for r in remotes if r.name == "origin"), remotes[0])
    try:
        return str(next(iter(chosen.urls)))
    except StopIteration:
        return None
