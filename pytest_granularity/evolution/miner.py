"""``granularity macros mine``: edit shapes from sources, each proved before it is written.

From each source's edit (``edits``) to clusters of alike rewrites (``generalize``) to a macro folder per
cluster (``writer``). A cluster supported by fewer than ``min_support`` different tasks is reported and not
written: one task's edit is an anecdote, not a skill. A source whose edit is not all calls of one shape
gives its pieces (``edits.pieces_of``), each free to join another task's shape; such a task is proved from
its commit with the rest of its change made (``pieces``). A written folder is kept only when every contract
check passes on it, the ``replay`` check included: the macro, called with each source task's values,
must leave a workspace that task's verifier accepts (ASI's check). A folder that fails is removed, and
the check and its evidence are reported.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.tasks import TASK_FILE, load_task
from ..core.test_layout import read_layout
from ..macros import Macro, load_macro
from ..process.sandbox import Sandbox
from ..run.contract_checks import (
    CHECKS,
    CheckFailed,
    CheckSkipped,
    Subject,
    contract_folders,
    contract_names,
    macro_folders_to_check,
    run_check,
)
from ..run.reproduces import reproduces
from .edits import ADDS_FILES, Edit, edit_of, pieces_of
from .engine_writer import MOVE, REPLACE, EngineKind
from .generalize import Instance, Pattern, clusters
from .macro import mined_macro
from .moves import moved
from .pieces import completed
from .replaced import replaced
from .shape import Shape, instance_arguments, shape_of
from .sources import Source, read_sources
from .writer import macro_name, write_macro

MIN_SUPPORT = 2
"""k: the fewest different tasks a shape must reproduce to be written (docs/evolution.md says why 2)."""
SUMMARY_FILE = "mined-macros.json"
Call = dict[str, Any]
STAGING = ".staging"


@dataclass(frozen=True)
class Found:
    """One shape and what became of it."""

    before: str
    after: str
    tasks: list[str]
    name: str | None = None
    dropped: list[str] = field(default_factory=list)
    """Source tasks whose own call the macro did not reproduce: left out of its examples and its support."""
    kept: bool = False
    reason: str = ""
    """Why it was not written or not kept; empty for a kept macro."""


@dataclass
class Mined:
    """What a mining run read and wrote, as ``mined-macros.json`` holds it."""

    sources: int = 0
    unused: dict[str, int] = field(default_factory=dict)
    """Sources whose edit is not calls of one shape, by reason (``edits``)."""
    with_pieces: int = 0
    """Of those, the sources that hold pieces a call could make (``edits.pieces_of``)."""
    moves: int = 0
    """Sources that move one module or package (``moves``): the move macro's candidates, not counted as unused."""
    replacements: int = 0
    """Sources that replace one text once in each file they change, some of them not Python, or in a way no
    shape spans (``replaced``): the text replacement macro's candidates, not counted as unused."""
    shapes: list[Found] = field(default_factory=list)

    @property
    def kept(self) -> list[Found]:
        return [s for s in self.shapes if s.kept]


def mine_macros(
    paths: Iterable[Path],
    output: Path,
    sandbox: Sandbox,
    tasks_root: Path | None = None,
    min_support: int = MIN_SUPPORT,
    say: Callable[[str], None] = print,
) -> Mined:
    """Mine ``paths`` (task folders, run reports) into macro folders under ``output``."""
    for path in paths:
        if path.is_dir() and output.resolve().is_relative_to(path.resolve()):
            raise InputError(f"{output}: inside the source folder {path}, whose tasks its examples would join")
    return mine_sources(read_sources(paths, tasks_root), output, sandbox, min_support, say)


def mine_sources(
    sources: list[Source],
    output: Path,
    sandbox: Sandbox,
    min_support: int = MIN_SUPPORT,
    say: Callable[[str], None] = print,
) -> Mined:
    """Mine these sources' edits into macro folders under ``output``."""
    edits: dict[str, Edit] = {}
    kinds: dict[EngineKind, list[tuple[Edit, Call]]] = {MOVE: [], REPLACE: []}
    unused: Counter[str] = Counter()
    for source in sources:
        made = edit_of(source)
        kind, call = _recognised(source, made)
        if kind is not None:
            kinds[kind].append((Edit(source, ()), call))
            continue
        if isinstance(made, str):
            unused[made] += 1
        edit = pieces_of(source) if isinstance(made, str) else made
        if edit is not None:
            edits[source.task.id] = edit
    in_part = sum(e.partial for e in edits.values())
    say(
        f"granularity macros mine: {len(sources)} sources, {len(edits) - in_part} of them calls of one shape, "
        f"{in_part} more with pieces of a larger change, {len(kinds[MOVE])} module moves, "
        f"{len(kinds[REPLACE])} text replacements"
    )
    mined = Mined(len(sources), dict(sorted(unused.items())), in_part, len(kinds[MOVE]), len(kinds[REPLACE]))
    output.mkdir(parents=True, exist_ok=True)
    for kind, found_of_kind in kinds.items():
        if found_of_kind:
            mined.shapes.append(_kind_proved(kind, found_of_kind, output, sandbox, min_support))
            say(f"  {kind.name} ({len(found_of_kind)} tasks): {mined.shapes[-1].reason or 'kept'}")
    for pattern, group in clusters([site.instance for e in edits.values() for site in e.sites]):
        shape = shape_of(pattern)
        tasks = sorted({i.task for i in group})
        assert shape is not None, "edit_of keeps only small statements, expressions and insertions"
        found = Found(shape.describe("before"), shape.describe("after"), tasks, macro_name(shape))
        if len(tasks) < min_support:
            found = replace(found, reason=f"supported by {len(tasks)} task(s), fewer than {min_support}")
        else:
            support = [edits[t] for t in tasks]
            calls = _calls(pattern, group, edits)
            shape = replace(
                shape, tests=any(read_layout(e.source.before).is_test_support(f) for e in support for f in e.files)
            )
            found = _proved(found, shape, support, [calls[t] for t in tasks], output, sandbox, min_support)
            say(f"  {found.name} ({len(found.tasks)} tasks): {'kept' if found.kept else found.reason}")
        mined.shapes.append(found)
    mined.shapes.sort(key=lambda s: (not s.kept, -len(s.tasks), s.name or ""))
    shutil.rmtree(output / STAGING, ignore_errors=True)
    (output / SUMMARY_FILE).write_text(json.dumps(asdict(mined), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return mined


def _calls(pattern: Pattern, group: list[Instance], edits: dict[str, Edit]) -> dict[str, list[Call]]:
    """Each task's calls: one per site, with the files it names and its values in the pattern's holes."""
    calls: dict[str, list[Call]] = {}
    for index, instance in enumerate(group):
        site = next(s for s in edits[instance.task].sites if s.instance is instance)
        calls.setdefault(instance.task, []).append({"files": list(site.files), **instance_arguments(pattern, index)})
    return calls


def _proved(
    found: Found,
    shape: Shape,
    edits: list[Edit],
    calls: list[list[Call]],
    output: Path,
    sandbox: Sandbox,
    min_support: int,
) -> Found:
    """The shape written, screened (each source task reproduced by its own calls), written again with the tasks
    it reproduces when it lost some, and checked against its contract; kept in ``output`` only if it passes."""
    assert found.name is not None
    stem = output / STAGING / found.name.replace("_", "-")
    write_macro(stem, shape, edits, calls)
    proved = completed(edits, calls, mined_macro(stem))
    usable = [(i, e) for i, e in enumerate(proved) if e is not None]
    if any(e.partial for _, e in usable):  # their examples start from the rest of the change made
        write_macro(stem, shape, [e for _, e in usable], [calls[i] for i, _ in usable])
    return _screened(found, stem, partial(write_macro, stem, shape), edits, calls, usable, sandbox, min_support)


def _recognised(source: Source, edit: Edit | str) -> tuple[EngineKind | None, Call]:
    """The change kind an engine carries out that the source's change is, with its call: a module move, or a
    text replacement where no shape takes the change whole (it is not Python, or not one shape's calls)."""
    if edit == ADDS_FILES:
        move = moved(source.before, source.after)
        return (MOVE, move.call()) if move is not None else (None, {})
    changed = [p for p in source.before if source.before[p] != source.after.get(p)]
    if isinstance(edit, str) or any(not p.endswith(".py") for p in changed):
        text = replaced(source.before, source.after)
        return (REPLACE, text.call()) if text is not None else (None, {})
    return None, {}


def _kind_proved(
    kind: EngineKind, found_of_kind: list[tuple[Edit, Call]], output: Path, sandbox: Sandbox, min_support: int
) -> Found:
    """The sources of one recognised kind as one macro, proved like a shape: each source reproduced, the
    contract checked; kept only when at least ``min_support`` of them are."""
    edits = [e for e, _ in found_of_kind]
    calls = [[c] for _, c in found_of_kind]
    tasks = sorted(e.source.task.id for e in edits)
    found = Found(kind.before, kind.after, tasks, kind.name)
    if len(tasks) < min_support:
        return replace(found, reason=f"supported by {len(tasks)} task(s), fewer than {min_support}")
    stem = output / STAGING / kind.name.replace("_", "-")
    kind.write(stem, edits, calls)
    return _screened(found, stem, partial(kind.write, stem), edits, calls, list(enumerate(edits)), sandbox, min_support)


def _screened(
    found: Found,
    stem: Path,
    write: Callable[[list[Edit], list[list[Call]]], str],
    edits: list[Edit],
    calls: list[list[Call]],
    usable: list[tuple[int, Edit]],
    sandbox: Sandbox,
    min_support: int,
) -> Found:
    """The macro written at ``stem`` kept, moved beside it, when it reproduces at least ``min_support`` of its
    usable sources (written again without the others) and passes every contract check."""
    macro = load_macro(stem)
    good = [(i, e) for i, e in usable if _reproduced(stem, e, calls[i], macro, sandbox)]
    kept = {i for i, _ in good}
    dropped = sorted(e.source.task.id for i, e in enumerate(edits) if i not in kept)
    found = replace(found, tasks=sorted(e.source.task.id for _, e in good), dropped=dropped)
    if len(good) < min_support:
        return replace(
            found, reason=f"reproduces {len(good)} of its {len(edits)} source tasks, fewer than {min_support}"
        )
    if dropped:
        write([e for _, e in good], [calls[i] for i, _ in good])
    failure = contract_failure(stem, sandbox)
    if failure is not None:
        return replace(found, reason=failure)
    final = stem.parent.parent / stem.name
    if final.exists():
        shutil.rmtree(final)
    stem.rename(final)
    return replace(found, kept=True)


def _reproduced(stem: Path, edit: Edit, calls: list[Call], macro: Macro, sandbox: Sandbox) -> bool:
    """Whether the calls reproduce the edit's task: from its own files, or for a piece of a larger change from
    its example (the commit with the rest made and the other calls too), with its last call."""
    if not edit.partial:
        return reproduces(edit.source.task, macro, calls, sandbox)
    example = load_task(stem / "examples" / edit.source.task.id / TASK_FILE)
    return reproduces(example, macro, calls[-1:], sandbox)


def contract_failure(folder: Path, sandbox: Sandbox) -> str | None:
    """The first contract check the macro in ``folder`` fails, and its evidence; None when it passes all."""
    folders = macro_folders_to_check([folder])
    subject = Subject(folder, contract_names(folders), sandbox, contract_folders(folders))
    for check in CHECKS:
        try:
            run_check(check, subject)
        except (CheckFailed, CheckSkipped) as exc:
            return f"check '{check}' failed: {' '.join(str(exc).split())[:300]}"
    return None
