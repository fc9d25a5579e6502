"""The folders of ``tasks mine --shard`` runs joined into the one folder a single run writes.

Shards are mined on different machines and downloaded wherever the merging job puts them, so a task's fixture is
named again from its new place, from the repository its ledger records (every runner mined the same checkout at
the same path, as CI runners have it). Nothing is written until every input is read and agrees with the others:
a merge either gives the whole history's folder or refuses in one line, naming what disagrees.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import InputError
from ..core.tasks import TASK_FILE
from .miner import LEDGER, STAGING, Ledger, _move

VARYING = ("seconds", "detail")
"""Fields of a decision that differ between runs deciding it the same way: the time taken, and the words of a
rejection (a temporary path, a timing)."""


@dataclass(frozen=True)
class Merged:
    shards: int
    tasks: int
    commits: int


def merge_shards(folders: Sequence[Path], out: Path) -> Merged:
    """Copy every task folder of ``folders`` into ``out`` and write one ``mined.json`` of all their decisions."""
    if out.is_dir() and any(out.iterdir()):
        raise InputError(f"-o {out}: is not empty; merge into a new folder")
    for folder in folders:
        if not (folder / LEDGER).is_file():
            raise InputError(f"{folder}: no {LEDGER}; give folders that granularity tasks mine wrote")
    repository = _repository(folders[0])
    ledgers = [Ledger.open(folder, repository) for folder in folders]
    commits = _decisions(folders, ledgers)
    tasks = _task_folders(folders)
    out.mkdir(parents=True, exist_ok=True)
    staging = out / STAGING
    try:
        for name, source in tasks.items():
            shutil.copytree(source, staging / name)
            _move(staging / name, out / name, Path(repository))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    Ledger(out / LEDGER, repository, commits, [run for ledger in ledgers for run in ledger.runs]).write()
    return Merged(len(folders), len(tasks), len(commits))


def _repository(folder: Path) -> str:
    """The repository the first shard mined; ``Ledger.open`` refuses every other shard that names another."""
    path = folder / LEDGER
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["repository"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: cannot read the repository it records ({exc!r})") from None


def _decisions(folders: Sequence[Path], ledgers: Sequence[Ledger]) -> dict[str, dict[str, Any]]:
    """Every shard's decisions in one; a commit two shards decided differently is refused, naming both."""
    merged: dict[str, dict[str, Any]] = {}
    where: dict[str, Path] = {}
    for folder, ledger in zip(folders, ledgers):
        for sha, row in ledger.commits.items():
            earlier = merged.setdefault(sha, row)
            where.setdefault(sha, folder)
            if _decision(earlier) != _decision(row):
                raise InputError(
                    f"commit {sha[:7]} is decided differently in {where[sha]} ({_said(earlier)}) and {folder}"
                    f" ({_said(row)}); merge shards of one mining"
                )
    return merged


def _decision(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key not in VARYING}


def _said(row: dict[str, Any]) -> str:
    return f"kept as {row['kept']}" if row.get("kept") else f"rejected: {row.get('reason')}"


def _task_folders(folders: Sequence[Path]) -> dict[str, Path]:
    """Each task folder by name; two of one name are one task only when their contents are the same."""
    found: dict[str, Path] = {}
    for folder in folders:
        for task_file in sorted(folder.glob(f"*/{TASK_FILE}")):
            source = task_file.parent
            earlier = found.setdefault(source.name, source)
            if earlier != source and _contents(earlier) != _contents(source):
                raise InputError(f"{earlier} and {source}: two task folders of one name with different contents")
    return found


def _contents(folder: Path) -> dict[str, Any]:
    """A task folder's files, its task file read without the fixture: each shard names it from where it lies."""
    files: dict[str, Any] = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    data = yaml.safe_load(files[TASK_FILE])
    if isinstance(data, dict):
        data.pop("fixture", None)
    files[TASK_FILE] = data
    return files
