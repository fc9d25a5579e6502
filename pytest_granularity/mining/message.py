"""A commit message as a task's prompt: what a person asked for, as they wrote it, without the bookkeeping
around it.

Brackets, code spans and the body stay: ``ellipsize()`` tells an agent a function is wanted, and a code
span may be the very call the tests make. Only what addresses the project's tools goes: trailers,
sign-offs, CI tags and bare issue references, which name nothing an agent could act on.
"""

from __future__ import annotations

import re

TRAILER_KEYS = re.compile(
    r"^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|"
    r"cc|change-id|reviewed-on|fixes|closes|resolves|refs?|see|pr|bug|issue|git-svn-id)\s*:",
    re.IGNORECASE,
)
_REFERENCE = (
    r"(?:\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|gh|pr)\s*:?\s*)?(?:\b[\w.-]+/[\w.-]+)?#\d+\b"
    r"|\b(?:gh|bpo)-\d+\b"
)
BARE_REFERENCES = rf"[ \t]*(?:\(\s*(?:{_REFERENCE})(?:\s*(?:[,;&]|\band\b)\s*(?:{_REFERENCE}))*\s*\)|(?:{_REFERENCE}))"
"""An issue reference with the blank before it, and the brackets around it when they hold only references,
so that no empty ``( )`` is left behind."""
SKIP_TAGS = r"[ \t]*\[(?:skip ci|ci skip|no ci|skip actions)\]"
CODE_SPAN = r"(?P<code>(?P<ticks>`+)[^\n]*?(?P=ticks))"
TOOLING = re.compile(rf"{CODE_SPAN}|{SKIP_TAGS}|{BARE_REFERENCES}", re.IGNORECASE)
"""What a line loses, tried at each place after a code span, which is kept whole: its text is code."""
MERGE_PR = re.compile(r"^Merge (pull request|branch|remote-tracking branch) .*$", re.IGNORECASE)
BRANCH_SYNC = re.compile(r"^merge\s+`?[\w./-]+`?\s+into\s+`?[\w./-]+`?", re.IGNORECASE)
"""A branch brought into another ("Merge stable into main"): many changes, and a request for none of them."""
FENCE = re.compile(r"^[ \t]*```")
LEFTOVER = re.compile(r"\W*(?:\band\b\W*)?", re.IGNORECASE)
"""What a line that held only references keeps of them: punctuation, a bullet, an "and"."""
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
        "start",
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
    """The message less its trailers, sign-offs, CI tags and bare issue references; all else as written.

    Code (a span in backticks, a fenced block) is never touched: ``"#123"`` there is a value, not an issue.
    """
    kept: list[str] = []
    fenced = False
    for line in message.replace("\r\n", "\n").split("\n"):
        fence = FENCE.match(line) is not None
        if fenced or fence:
            kept.append(line.rstrip())
        elif not TRAILER_KEYS.match(line.strip()) and not MERGE_PR.match(line.strip()):
            cleaned = _without_references(line)
            if cleaned is not None:
                kept.append(cleaned)
        fenced = fenced != fence
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def _without_references(line: str) -> str | None:
    """The line less its CI tags and references outside code spans; None when nothing else was on it."""
    cleaned = TOOLING.sub(lambda found: found.group("code") or "", line).rstrip()
    if cleaned == line.rstrip():
        return cleaned
    if LEFTOVER.fullmatch(cleaned):
        return None
    return re.sub(r"^([ \t]*)[:;,.][ \t]*", r"\1", cleaned)


def with_interface(message: str, section: str) -> str:
    """A mined task's prompt: the cleaned message, then what the tests use that the commit adds (see
    ``interface.Interface.section``), so that an agent is asked for the names the verifier calls."""
    return f"{message}\n\n{section}" if section else message


def says_nothing(prompt: str) -> bool:
    """A prompt no one could act on: fewer than three words, only words like "wip", "fix", "update", or a
    branch sync."""
    if BRANCH_SYNC.match(prompt.strip()):
        return True
    words = re.findall(r"[A-Za-z]+", prompt.lower())
    meaningful = [w for w in words if w not in VACUOUS]
    return len(words) < MIN_WORDS or not meaningful
