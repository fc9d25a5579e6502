"""The candidates in a repository's history, read through GitPython without touching the repository.

A *candidate* is a first-parent, non-merge commit that changes at least one non-test ``.py`` file and
at least one test file (tests as pytest finds them at that commit, ``layout``), or one whose changes
git's rename detection finds to be pure renames and moves (a refactor, verified by the suite alone).
What is not a candidate is not counted; a candidate that cannot become a task gets one reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..core.test_layout import TestLayout, read_layout
from .message import clean_message, says_nothing

if TYPE_CHECKING:
    import git


MERGE_LINE = re.compile(r"^Merge (pull request|branch|remote-tracking branch|commit) ", re.IGNORECASE)


@dataclass(frozen=True)
class Limits:
    """What a candidate may be at most; a larger one is rejected as ``too large`` (docs/mining.md)."""

    source_files: int = 20
    changed_lines: int = 2000
    tree_files: int = 5000
    tree_bytes: int = 50_000_000


@dataclass(frozen=True)
class Change:
    """One path's change in a commit: ``A``, ``M``, ``D`` or ``R`` (from ``old``), and what kind of file."""

    status: str
    path: str
    old: str | None = None
    submodule: bool = False


@dataclass(frozen=True)
class Candidate:
    sha: str
    parent: str
    date: str
    message: str
    changes: tuple[Change, ...]
    layout: TestLayout
    lines: int = 0
    refactor: bool = False
    sources: tuple[str, ...] = field(default=())
    tests: tuple[str, ...] = field(default=())

    @property
    def short(self) -> str:
        return self.sha[:7]


def open_repository(path: Path) -> git.Repo:
    """The repository at ``path``, refused with a clear message when it cannot be mined."""
    import git

    try:
        repo = git.Repo(path)
    except git.NoSuchPathError:
        raise InputError(f"{path}: no such folder") from None
    except git.InvalidGitRepositoryError:
        raise InputError(f"{path}: not a git repository (its root, with a .git folder)") from None
    if repo.bare:
        raise InputError(f"{path}: a bare repository has no work tree for tasks to name as their fixture; clone it")
    if repo.git.rev_parse("--is-shallow-repository").strip() == "true":
        raise InputError(f"{path}: a shallow clone lacks the history to mine; run 'git fetch --unshallow' there")
    if not repo.head.is_valid():
        raise InputError(f"{path}: the repository has no commits")
    return repo


def first_parent_commits(repo: git.Repo, revisions: str) -> list[str]:
    """The commits of ``revisions`` (``HEAD``, ``A..B``), newest first, following first parents only."""
    import git

    try:
        listed = repo.git.rev_list("--first-parent", revisions, "--")
    except git.GitCommandError as exc:
        raise InputError(f"revisions '{revisions}': {exc.stderr.strip() or exc}") from None
    shas: list[str] = listed.split()
    if not shas:
        raise InputError(f"revisions '{revisions}': no commits in that range")
    return shas


def candidate(repo: git.Repo, sha: str) -> Candidate | None:
    """The commit as a candidate, or None when it is not one (a root commit, an octopus merge, no ``.py`` change).

    A merge on the first-parent line (a pull request merged) is a candidate whose change is what it brought
    in, ``M^1..M``, and whose message is the pull request's title and description (:func:`_message`)."""
    commit = repo.commit(sha)
    if len(commit.parents) not in (1, 2):
        return None
    parent = commit.parents[0]
    changes = _changes(repo, parent.hexsha, sha)
    layout = read_layout(root_config(commit))
    sources = tuple(c.path for c in changes if c.path.endswith(".py") and not layout.is_test_support(c.path))
    tests = tuple(c.path for c in changes if layout.is_test_file(c.path) and c.status != "D")
    refactor = bool(changes) and all(c.status == "R" for c in changes if not layout.is_test_support(c.path))
    refactor = refactor and any(c.path.endswith(".py") for c in changes if c.status == "R")
    if not refactor and not (sources and tests):
        return None
    return Candidate(
        sha=sha,
        parent=parent.hexsha,
        date=commit.committed_datetime.isoformat(),
        message=_message(repo, sha),
        changes=changes,
        layout=layout,
        lines=_changed_lines(repo, parent.hexsha, sha, layout),
        refactor=refactor,
        sources=sources,
        tests=tests,
    )


def too_large(repo: git.Repo, found: Candidate, limits: Limits) -> str | None:
    """Why the candidate is over a limit, or None."""
    source_changes = [c for c in found.changes if not found.layout.is_test_support(c.path)]
    if len(source_changes) > limits.source_files:
        return f"{len(source_changes)} files changed outside the tests (limit {limits.source_files})"
    if found.lines > limits.changed_lines:
        return f"{found.lines} lines changed outside the tests (limit {limits.changed_lines})"
    count = size = 0
    for blob in blobs(repo, found.parent):
        count += 1
        size += blob.size
    if count > limits.tree_files or size > limits.tree_bytes:
        return f"the parent's tree holds {count} files, {size} bytes (limits {limits.tree_files}, {limits.tree_bytes})"
    return None


def blobs(repo: git.Repo, sha: str) -> Iterator[git.Blob]:
    """The files of a commit's tree (a submodule, which has no content here, is not one)."""
    import git

    return (item for item in repo.commit(sha).tree.traverse() if isinstance(item, git.Blob))


def _changes(repo: git.Repo, parent: str, sha: str) -> tuple[Change, ...]:
    raw = repo.git.diff("--raw", "-z", "-M", "--no-ext-diff", "--no-color", parent, sha)
    fields = raw.split("\0")
    changes = []
    i = 0
    while i < len(fields) - 1:
        meta = fields[i].split()
        if not meta:
            i += 1
            continue
        status, submodule = meta[-1][0], "160000" in (meta[0].lstrip(":"), meta[1])
        if status in "RC":
            changes.append(Change("R" if status == "R" else "A", fields[i + 2], fields[i + 1], submodule))
            i += 3
        else:
            changes.append(Change(status, fields[i + 1], None, submodule))
            i += 2
    return tuple(changes)


def _changed_lines(repo: git.Repo, parent: str, sha: str, layout: TestLayout) -> int:
    total = 0
    for line in repo.git.diff("--numstat", "-M", "--no-ext-diff", parent, sha).splitlines():
        added, removed, path = (line.split("\t") + ["", ""])[:3]
        if not layout.is_test_support(path.split(" => ")[-1].strip("{}")) and added.isdigit() and removed.isdigit():
            total += int(added) + int(removed)
    return total


def root_config(commit: git.Commit) -> dict[str, bytes]:
    from ..core.test_layout import CONFIG_FILES

    found = {}
    for name in CONFIG_FILES:
        try:
            found[name] = (commit.tree / name).data_stream.read()
        except KeyError:
            continue
    return found


def _message(repo: git.Repo, sha: str) -> str:
    """The message in UTF-8: git re-encodes one a commit's ``encoding`` header names (latin-1, say); bytes that
    are not text in that encoding become replacement characters.

    A merge's own message is the pull request's title and description after the "Merge pull request #N from
    user/branch" line; a merge with nothing more (``git merge`` of a branch) says what it brought in through the
    messages of the commits it merged (:func:`_merged_messages`)."""
    message = str(repo.git.log("-1", "--format=%B", "--encoding=UTF-8", sha))
    if len(repo.commit(sha).parents) != 2:
        return message
    first, _, rest = message.strip().partition("\n")
    if not MERGE_LINE.match(first):
        return message
    if rest.strip():
        return rest.strip() + "\n"
    return _merged_messages(repo, sha)


def _merged_messages(repo: git.Repo, sha: str) -> str:
    """The messages of the commits a merge brought in, oldest first, of those that change Python and say
    something: the release bumps, requirement updates and tool runs a branch brings along ask for nothing."""
    log = repo.git.log(
        "--reverse", "--no-merges", "--format=%x1e%B%x1f", "--name-only", "--encoding=UTF-8", f"{sha}^1..{sha}^2"
    )
    kept = []
    for entry in log.split("\x1e")[1:]:
        message, _, names = entry.partition("\x1f")
        if any(name.endswith(".py") for name in names.split("\n")) and not says_nothing(clean_message(message)):
            kept.append(message.strip())
    return "\n\n".join(kept) + "\n"
