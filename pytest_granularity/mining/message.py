"""A commit message as a task's prompt: what a person asked for, without the bookkeeping around it."""

from __future__ import annotations

import re

TRAILER_KEYS = re.compile(
    r"^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|"
    r"cc|change-id|reviewed-on|fixes|closes|resolves|refs?|see|pr|bug|issue|git-svn-id)\s*:",
    re.IGNORECASE,
)
BARE_REFERENCE = re.compile(
    r"\(?(?:\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|gh|pr)\s*:?\s*)?"
    r"(?:\b[\w.-]+/[\w.-]+)?#\d+\b\)?",
    re.IGNORECASE,
)
MERGE_PR = re.compile(r"^Merge (pull request|branch|remote-tracking branch) .*$", re.IGNORECASE)
SKIP_TAGS = re.compile(r"\[(?:skip ci|ci skip|no ci|skip actions)\]", re.IGNORECASE)
VACUOUS = frozenset(
    {
        "wip",
        "fix",
        "fixes",
        "fixed",
        "fixup",
        "update",
        "updates",
        "updated",
        "tweak",
        "tweaks",
        "cleanup",
        "clean",
        "up",
        "changes",
        "change",
        "misc",
        "minor",
        "stuff",
        "typo",
        "typos",
        "test",
        "tests",
        "lint",
        "format",
        "formatting",
        "refactor",
        "bump",
        "release",
        "version",
        "merge",
        "temp",
        "tmp",
        "oops",
        "more",
        "again",
        "try",
        "trying",
        "works",
        "work",
        "done",
        "commit",
        "save",
        "progress",
        "small",
        "improvements",
        "improvement",
    }
)
MIN_WORDS = 3


def clean_message(message: str) -> str:
    """The message less its trailers, sign-offs, CI tags and bare issue references, whitespace tidied."""
    lines = [line.rstrip() for line in message.replace("\r\n", "\n").split("\n")]
    kept = [line for line in lines if not TRAILER_KEYS.match(line.strip()) and not MERGE_PR.match(line.strip())]
    text = "\n".join(kept)
    text = SKIP_TAGS.sub("", text)
    text = BARE_REFERENCE.sub("", text)
    text = re.sub(r"[ \t]+\n", "\n", re.sub(r"[ \t]{2,}", " ", text))
    text = re.sub(r"\(\s*\)|\s+(?=[.,;:](?:\s|$))", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def says_nothing(prompt: str) -> bool:
    """A prompt no one could act on: fewer than three words, or only words like "wip", "fix", "update"."""
    words = re.findall(r"[A-Za-z]+", prompt.lower())
    meaningful = [w for w in words if w not in VACUOUS]
    return len(words) < MIN_WORDS or not meaningful
