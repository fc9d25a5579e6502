"""Mining a history: every candidate decided once, kept as a task or rejected with one reason.

The decisions are kept in ``DIR/mined.json`` as each is made, so a second run resumes where the
first stopped (a decided commit is not redone) and Ctrl-C loses only the commits in flight. Each
candidate is built in ``DIR/.mining/`` and moved into ``DIR`` only once ``tasks check`` passes on it.
Candidates are decided ``jobs`` at a time, each in a forked worker with its own kept workspace.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from ..core.tasks import TASK_FILE, Task, TaskError, dump_task, task_from_data
from ..core.workspace import WorkspaceError, remove_kept_folders, write_tree
from ..macros import MacroRegistry
from ..process import interrupts
from ..process.pytest_process import test_time
from ..process.sandbox import Sandbox
from ..run.interface import interface, unnamed
from ..run.taskcheck import check_task_file, worker_started
from .affected import affected_tests
from .build import (
    decided,
    family_of,
    fixture_value,
    hidden_tree,
    remote_of,
    solution_of,
    start_draft,
    task_id,
    tree_files,
)
from .generated import for_tree, generated_files
from .history import (
    Candidate,
    Limits,
    blobs,
    candidate,
    first_parent_commits,
    open_repository,
    too_large,
)
from .macro_fit import macro_fit
from .message import clean_message, says_nothing, with_interface
from .probe import Rejected, decisive_tests, still_passing
from .shards import Shard, in_shard, run_fields
from .test_spec import derive, usable

if TYPE_CHECKING:
    import git

LEDGER = "mined.json"
WORKER_END_SECONDS = 30.0
DETAIL_LIMIT = 300
STAGING = ".mining"
REASONS = (
    "message says nothing",
    "too large",
    "submodule change",
    "parent holds task files",
    "cannot import at the parent",
    "missing module",
    "tests fail after",
    "tests pass before",
    "flaky",
    "underspecified",
    "timeout",
    "project's config fails here",
    "check failed",
    "internal error",
)
"""Every reason a candidate is rejected for, in the order they are tried: each candidate gets exactly one."""


@dataclass(frozen=True)
class MineSettings:
    revisions: str = "HEAD"
    limit: int | None = None
    jobs: int = 1
    repeats: int = 2
    timeout: float = 120.0
    limits: Limits = field(default_factory=Limits)
    shard: Shard | None = None


@dataclass(frozen=True)
class Decision:
    sha: str
    kept: str | None
    reason: str | None = None
    detail: str = ""
    seconds: float = 0.0
    family: str | None = None
    tests: int = 0
    """How many fail-to-pass tests the kept task's verifier selects."""
    macro: str | None = None
    """The builtin (or registered) macro whose derived call reproduces the commit, if any."""
    macro_calls_tried: int = 0
    unsteady: int = 0
    """Pass-to-pass test files left out of the suite because a repeat changed an outcome in them."""
    runs: int = 0
    """pytest runs made to decide it (memo hits not counted): what a candidate costs, beside its seconds."""

    def row(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", 0) and k != "sha"}


@dataclass(frozen=True)
class _Kept:
    name: str
    family: str
    tests: int
    macro: str | None
    tried: int
    unsteady: int


@dataclass
class Ledger:
    """``mined.json``: the repository mined and every decided commit, written after each decision."""

    path: Path
    repository: str
    commits: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, out: Path, repository: str) -> Ledger:
        path = out / LEDGER
        if not path.exists():
            return cls(path, repository)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise WorkspaceError(f"{path}: cannot read the decisions of an earlier run ({exc}); move it away") from None
        if data.get("repository") != repository:
            raise WorkspaceError(f"{path}: records mining of {data.get('repository')}, not {repository}")
        return cls(path, repository, dict(data.get("commits", {})), list(data.get("runs", [])))

    runs: list[dict[str, Any]] = field(default_factory=list)
    """Each run's decisions and wall time: a resumed history's time is their sum."""

    def record(self, decision: Decision) -> None:
        self.commits[decision.sha] = decision.row()
        self.write()

    def write(self) -> None:
        document = {"repository": self.repository, "commits": self.commits, "runs": self.runs}
        part = self.path.with_suffix(".part")
        part.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(part, self.path)


@dataclass(frozen=True)
class Summary:
    commits: int
    candidates: int
    kept: int
    reasons: dict[str, int]
    seconds: float
    interrupted: bool = False
    missing: tuple[str, ...] = ()
    """The modules candidates were rejected for lacking: what to install before mining again."""


Progress = Callable[[int, int, Decision, "Counter[str]", float], None]


def mine(
    repo_path: Path,
    out: Path,
    macros: MacroRegistry,
    sandbox: Sandbox,
    settings: MineSettings,
    progress: Progress | None = None,
) -> Summary:
    """Decide every candidate of ``settings.revisions`` not decided yet; kept tasks land in ``out``."""
    started = time.monotonic()
    repo = open_repository(repo_path)
    root = Path(repo.working_tree_dir or repo_path).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ledger = Ledger.open(out, str(root))
    shas = first_parent_commits(repo, settings.revisions)
    found = in_shard(_candidates(repo, shas, settings.limit), settings.shard)
    todo = [c for c in found if c.sha not in ledger.commits]
    counts = Counter(_tally(row) for sha, row in ledger.commits.items() if sha in {c.sha for c in found})
    staging = out / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    _shared[:] = [_Job(root, out.resolve(), macros, sandbox, settings, remote_of(repo), generated_files(repo))]
    interrupted = False
    try:
        for decision in _decide_all(todo, settings.jobs):
            ledger.record(decision)
            counts[_tally(decision.row())] += 1
            if progress:
                progress(sum(counts.values()), len(found), decision, counts, time.monotonic() - started)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        sandbox.servers.stop()
        remove_kept_folders()
    seconds = time.monotonic() - started
    run = {"revisions": settings.revisions, "jobs": settings.jobs, "seconds": round(seconds, 1)}
    ledger.runs.append({**run, **run_fields(settings.shard)})
    ledger.write()
    kept = counts.pop("kept", 0)
    chosen = {c.sha for c in found}
    rows = [row for sha, row in ledger.commits.items() if sha in chosen and row.get("reason") == "missing module"]
    missing = tuple(sorted({str(row.get("detail")) for row in rows}))
    return Summary(len(shas), len(found), kept, dict(counts), seconds, interrupted, missing)


def _tally(row: dict[str, Any]) -> str:
    return "kept" if row.get("kept") else str(row.get("reason"))


def _candidates(repo: git.Repo, shas: list[str], limit: int | None) -> list[Candidate]:
    found: list[Candidate] = []
    for sha in shas:
        if limit is not None and len(found) >= limit:
            break
        each = candidate(repo, sha)
        if each is not None:
            found.append(each)
    return found


@dataclass(frozen=True)
class _Job:
    root: Path
    out: Path
    macros: MacroRegistry
    sandbox: Sandbox
    settings: MineSettings
    remote: str | None
    generated: tuple[str, ...]
    """Files the project's build wrote into the checkout that git ignores (``generated``)."""


_shared: list[_Job] = []


def _decide_all(todo: list[Candidate], jobs: int) -> Iterator[Decision]:
    """Each candidate's decision as it is made. Ctrl-C reaches this process alone (workers ignore it): it ends
    the workers, each cleaning up its runs and folders as SIGTERM has it do, and nothing they were deciding is
    yielded, so nothing undecided is ever recorded."""
    if jobs <= 1 or len(todo) <= 1:
        yield from map(decide, todo)
        return
    context = multiprocessing.get_context("fork")
    initargs = (_shared[0].sandbox,)
    pool = ProcessPoolExecutor(min(jobs, len(todo)), mp_context=context, initializer=_worker, initargs=initargs)
    try:
        pending: set[Future[Decision]] = set()
        queue = iter(todo)
        for each in queue:
            pending.add(pool.submit(decide, each))
            if len(pending) >= jobs:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                following = next(queue, None)
                if following is not None:
                    pending.add(pool.submit(decide, following))
    except BaseException:
        _end_workers()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _worker(sandbox: Sandbox) -> None:
    interrupts.install()  # SIGTERM from the parent: kill this worker's test runs, remove its folders, end
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    interrupts.die_with_parent()
    worker_started(sandbox)


def _end_workers() -> None:
    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(WORKER_END_SECONDS)


def decide(found: Candidate) -> Decision:
    """One candidate decided: kept as a task in the output folder, or rejected with one reason."""
    started, runs = time.monotonic(), test_time.runs
    job = _shared[0]
    fields: dict[str, Any]
    try:
        kept = _build(found, job)
        fields = {"kept": kept.name, "family": kept.family, "tests": kept.tests, "macro": kept.macro}
        fields.update(macro_calls_tried=kept.tried, unsteady=kept.unsteady)
    except Rejected as exc:
        fields = {"kept": None, "reason": exc.reason, "detail": exc.detail}
    except (TaskError, WorkspaceError) as exc:
        fields = {"kept": None, "reason": "check failed", "detail": str(exc)}
    except Exception as exc:  # plain data, never an exception a process pool must pickle (a shutil.Error's DirEntry)
        fields = {"kept": None, "reason": "internal error", "detail": f"{type(exc).__name__}: {exc}"[:DETAIL_LIMIT]}
    finally:
        shutil.rmtree(job.out / STAGING / found.sha, ignore_errors=True)
    seconds = round(time.monotonic() - started, 2)
    return Decision(found.sha, seconds=seconds, runs=test_time.runs - runs, **fields)


def _build(found: Candidate, job: _Job) -> _Kept:
    import git

    repo = git.Repo(job.root)
    prompt = clean_message(found.message)
    _screen(repo, found, prompt, job)
    after, before = tree_files(repo, found.sha), tree_files(repo, found.parent)
    spec, problem = usable(derive(after, found.layout, before))
    if problem:
        raise Rejected("project's config fails here", problem)
    overlay, removed = solution_of(found, after)
    hidden = hidden_tree(found, after)
    changed = set(found.tests)
    same = {p for p in hidden if found.layout.is_test_file(p) and before.get(p) == hidden[p]}
    roots = {name: folders[0] for name, folders in spec.import_roots.items()}
    unchanged = affected_tests({**before, **after}, roots, [*overlay, *removed], same)
    name = task_id(job.root.name, found, prompt)
    folder = job.out / STAGING / found.sha / name
    family = family_of(found)
    draft = start_draft(
        folder,
        fixture=job.root,
        found=found,
        prompt=prompt,
        family=family,
        overlay=overlay,
        removed=removed,
        hidden=hidden,
        remote=job.remote,
        spec=spec,
        generated=for_tree(job.generated, before),
        timeout=job.settings.timeout,
    )
    path = folder / TASK_FILE
    probe = task_from_data(path, decided(draft, sorted(changed | unchanged), [], family))
    decisive = decisive_tests(probe, changed, unchanged, job.settings.repeats, job.sandbox)
    used = interface(before, after, found.sources, hidden, decisive.fail_to_pass)
    draft["prompt"] = with_interface(prompt, used.section()) + "\n"
    missing = used.missing(draft["prompt"])
    if missing:
        raise Rejected("underspecified", unnamed(missing))
    selected = decided(draft, decisive.fail_to_pass, [], family)
    suite = decisive.pass_to_pass_files + _still_passing(task_from_data(path, selected), found, before, changed, job)
    selected = decided(draft, decisive.fail_to_pass, suite, family)
    fit = macro_fit(task_from_data(path, selected), before, job.macros, job.sandbox)
    if fit.call is not None or fit.tried:
        family = family if fit.call is not None else "recovery"
        selected = decided(draft, decisive.fail_to_pass, suite, family, fit.call)
    dump_task(path, selected)
    check = check_task_file(path, job.macros, True, job.sandbox)
    if not check.ok:
        raise Rejected("check failed", _named(check.problems[0]))
    _move(folder, job.out / name, job.root)
    skill = fit.call["skill"] if fit.call else None
    return _Kept(name, family, len(decisive.fail_to_pass), skill, fit.tried, decisive.unsteady)


def _named(problem: str) -> str:
    """A failed check's first line, and the verifier's reason when it gave one: what a reader needs."""
    lines = problem.splitlines()
    reason = next((line for line in lines if line.startswith("[verifier]")), "")
    return " ".join(filter(None, (lines[0] if lines else "", reason)))[:DETAIL_LIMIT]


def _still_passing(task: Task, found: Candidate, before: dict[str, bytes], changed: set[str], job: _Job) -> list[str]:
    """The parent's versions of the changed test files, run test by test on the commit (``probe.still_passing``)."""
    folder = job.out / STAGING / found.sha / "parent-tests"
    write_tree(folder, hidden_tree(found, before))
    existing = tuple(sorted(path for path in changed if path in before))
    return still_passing(replace(task, verifier_tests=folder, verifier_select=existing), job.sandbox)


def _screen(repo: git.Repo, found: Candidate, prompt: str, job: _Job) -> None:
    """The rejections that need no test run, in ``REASONS`` order."""
    if says_nothing(prompt):
        raise Rejected("message says nothing", repr(found.message.strip().split("\n", 1)[0][:60]))
    large = too_large(repo, found, job.settings.limits)
    if large:
        raise Rejected("too large", large)
    if any(c.submodule for c in found.changes):
        raise Rejected("submodule change", "the commit changes a submodule, whose files are not in this repository")
    if any(PurePosixPath(str(blob.path)).name == TASK_FILE for blob in blobs(repo, found.parent)):
        raise Rejected("parent holds task files", "an agent working on the parent would see those tasks' answers")


def _move(staged: Path, final: Path, fixture: Path) -> None:
    """The checked folder into its place, its fixture named from there (the same folder, one level up)."""
    path = staged / TASK_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["fixture"] = fixture_value(final, fixture)
    dump_task(path, data)
    if final.exists():
        shutil.rmtree(final)
    os.replace(staged, final)


def print_progress(done: int, total: int, decision: Decision, counts: Counter[str], seconds: float) -> None:
    """One line per decided candidate: what became of it, the tally so far and the time left."""
    what = f"kept {decision.kept}" if decision.kept else f"{decision.reason}: {decision.detail}"[:100]
    rate = seconds / max(1, done)
    left = max(0.0, (total - done) * rate)
    kept = counts.get("kept", 0)
    print(
        f"[{done}/{total}] {decision.sha[:7]} {what} ({decision.seconds:.1f}s; kept {kept}, "
        f"rejected {done - kept}; about {left / 60:.1f} min left)",
        flush=True,
    )
    sys.stdout.flush()
