"""The micro tools: one primitive action each, with the JSON schema a model would see.

Every tool answers with an observation text, also when it refuses: a bad argument, a path
that leaves the workspace or an ambiguous edit is something the agent reads and reacts to,
not an exception that ends the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import regex

from .errors import GranularityError
from .schemas import first_error
from .workspace import PathEscape, Workspace, shown_path

MAX_SEARCH_HITS = 50
MAX_LIST_FILES = 400
SEARCH_SECONDS = 2.0
"""A whole search's budget, in this process's CPU seconds (what ``regex``'s timeout counts too): a wall-clock
budget would stop an ordinary search on a loaded machine, and a search's answer, which the next request
carries, would then depend on the load (a recorded session would not replay). A real search takes milliseconds."""
DEFAULT_TEST_TIMEOUT = 120.0
FINISH = "finish"
RUN_TESTS = "run_tests"
HAND_OVER = "use_micro_tools"


class ToolError(GranularityError):
    """A refusal the agent is told about, as the tool's observation."""


class TestRun(Protocol):
    """What ``run_tests`` tells the agent of a pytest run."""

    @property
    def exit_code(self) -> int | None: ...

    @property
    def timed_out(self) -> bool: ...

    def tail(self) -> str: ...


class ToolScope(Protocol):
    """What a tool acts on: the workspace, the task's tests, and a way to run pytest there. The process layer
    says how tests run (``process/tool_context.ToolContext``); the tools never start a process themselves."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def tests(self) -> tuple[str, ...]: ...

    def run_pytest(self, paths: list[str]) -> TestRun: ...


@dataclass(frozen=True)
class Observation:
    text: str
    ok: bool = True


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[ToolScope, dict[str, Any]], str]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool form: what the model is sent, and what tokens are counted on."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def _obj(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


PATH = {"type": "string", "description": "Path relative to the workspace root."}


def _list_files(ctx: ToolScope, args: dict[str, Any]) -> str:
    prefix = args.get("path", ".")
    base = ctx.workspace.resolve(prefix) if prefix not in ("", ".") else ctx.workspace.root
    if not base.exists():
        raise ToolError(f"no such directory: {prefix}")
    files = sorted(ctx.workspace.relative(p) for p in ctx.workspace.files_under(base))
    shown = files[:MAX_LIST_FILES]
    more = f"\n... and {len(files) - len(shown)} more" if len(files) > len(shown) else ""
    return "\n".join(shown) + more if shown else "(no files)"


def _read_file(ctx: ToolScope, args: dict[str, Any]) -> str:
    path = args["path"]
    lines = _text_of(ctx, path).splitlines()
    start = args.get("start_line", 1)
    end = min(args.get("end_line", len(lines)), len(lines))
    if start > max(len(lines), 1) or end < start:
        raise ToolError(f"line range {start}-{end} is outside {path} ({len(lines)} lines)")
    body = "\n".join(f"{n:6d}\t{lines[n - 1]}" for n in range(start, end + 1))
    return f"{path} (lines {start}-{end} of {len(lines)})\n{body}"


def _search(ctx: ToolScope, args: dict[str, Any]) -> str:
    """Python's ``re`` syntax, matched by the ``regex`` module under a time budget for the whole search: ``re``
    cannot be stopped, and a pattern that backtracks exponentially (``(a|aa)+$`` on a long line) hung a run
    and the MCP server with it. ``regex`` also matches some such patterns (``(a+)+$``) in linear time."""
    try:
        pattern = regex.compile(args["pattern"])
    except regex.error as exc:
        raise ToolError(f"invalid regular expression: {exc}") from None
    prefix = args.get("path", ".")
    base = ctx.workspace.resolve(prefix) if prefix not in ("", ".") else ctx.workspace.root
    hits: list[str] = []
    deadline = time.process_time() + SEARCH_SECONDS
    for file in ctx.workspace.files_under(base):
        rel = ctx.workspace.relative(file)
        try:
            text = file.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            try:
                found = pattern.search(line, timeout=max(deadline - time.process_time(), 0.0))
            except TimeoutError:
                raise ToolError(
                    f"the search was stopped after {SEARCH_SECONDS:g}s of matching (at {rel}:{n}): the pattern"
                    " backtracks too much; avoid nested repetition such as (a|aa)+"
                ) from None
            if found:
                hits.append(f"{rel}:{n}: {line.strip()}")
    if not hits:
        return "no matches"
    more = f"\n... {len(hits) - MAX_SEARCH_HITS} more matches" if len(hits) > MAX_SEARCH_HITS else ""
    return "\n".join(hits[:MAX_SEARCH_HITS]) + more


def _edit_file(ctx: ToolScope, args: dict[str, Any]) -> str:
    path, old, new = args["path"], args["old"], args["new"]
    text = _text_of(ctx, path)
    count = text.count(old) if old else 0
    if count == 0:
        raise ToolError(f"the text to replace was not found in {path}")
    if count > 1:
        raise ToolError(f"the text to replace occurs {count} times in {path}; include more context to make it unique")
    ctx.workspace.resolve(path).write_text(text.replace(old, new, 1), encoding="utf-8")
    return f"edited {path}"


def _create_file(ctx: ToolScope, args: dict[str, Any]) -> str:
    path = args["path"]
    target = ctx.workspace.resolve(path)
    if target.exists():
        raise ToolError(f"{path} already exists; use edit_file to change it")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(args["content"], encoding="utf-8")
    return f"created {path}"


def _delete_file(ctx: ToolScope, args: dict[str, Any]) -> str:
    path = args["path"]
    target = ctx.workspace.resolve(path)
    if not target.is_file():
        raise ToolError(f"no such file: {path}")
    target.unlink()
    return f"deleted {path}"


def _run_tests(ctx: ToolScope, args: dict[str, Any]) -> str:
    paths = list(args.get("paths") or ctx.tests)
    check_test_paths(ctx.workspace, paths)
    result = ctx.run_pytest(paths)
    status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
    return f"pytest {' '.join(paths) or '(all tests)'}: {status}\n{result.tail()}"


def check_test_paths(workspace: Workspace, paths: list[str]) -> None:
    """Refuse (``PathEscape``) what pytest would read as something other than a test path in the workspace: an
    option (``--junitxml=/elsewhere`` writes there) or an ``@file`` of more arguments."""
    for p in paths:
        if p.startswith(("-", "@")):
            raise PathEscape(
                f"'{shown_path(p)}' is not a test path: pytest would read it as an option, and none is taken"
            )
        workspace.resolve(p)


def _show_diff(ctx: ToolScope, args: dict[str, Any]) -> str:
    return ctx.workspace.diff() or "no changes"


def _finish(ctx: ToolScope, args: dict[str, Any]) -> str:
    return "finished"


def _text_of(ctx: ToolScope, path: str) -> str:
    target = ctx.workspace.resolve(path)
    if not target.is_file():
        raise ToolError(f"no such file: {path}")
    try:
        return target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{path} is not a UTF-8 text file") from None


MICRO_TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("list_files", "List the files under a directory of the workspace.", _obj([], path=PATH), _list_files),
        Tool(
            "read_file",
            "Read a text file, with line numbers; optionally only a line range.",
            _obj(
                ["path"],
                path=PATH,
                start_line={"type": "integer", "minimum": 1},
                end_line={"type": "integer", "minimum": 1},
            ),
            _read_file,
        ),
        Tool(
            "search",
            "Search the workspace's text files for a Python regular expression; returns path:line: text.",
            _obj(["pattern"], pattern={"type": "string", "minLength": 1}, path=PATH),
            _search,
        ),
        Tool(
            "edit_file",
            "Replace an exact text that occurs exactly once in a file.",
            _obj(["path", "old", "new"], path=PATH, old={"type": "string", "minLength": 1}, new={"type": "string"}),
            _edit_file,
        ),
        Tool(
            "create_file",
            "Create a new file with the given content (the file must not exist).",
            _obj(["path", "content"], path=PATH, content={"type": "string"}),
            _create_file,
        ),
        Tool("delete_file", "Delete a file.", _obj(["path"], path=PATH), _delete_file),
        Tool(
            RUN_TESTS,
            "Run pytest in the workspace (the task's tests by default, or the given paths).",
            _obj([], paths={"type": "array", "items": {"type": "string"}}),
            _run_tests,
        ),
        Tool("show_diff", "Show every change made to the workspace so far, as a unified diff.", _obj([]), _show_diff),
        Tool(
            FINISH,
            "Declare the task done. Only the task's hidden verifier decides whether it is.",
            _obj([], summary={"type": "string"}),
            _finish,
        ),
    )
}

HAND_OVER_TOOL = Tool(
    HAND_OVER,
    "The macro calls so far did part of the task: end the macro phase and finish the task with the micro tools, "
    "in this same workspace.",
    _obj([]),
    _finish,
)
"""Offered in a macro phase once a macro that makes pieces of a change (its contract's ``pieces``) has succeeded,
under a policy that hands over (``Policy.hands_over``): the executor handles it, as it handles ``finish``."""


def argument_problem(tool: Tool, args: Any) -> str | None:
    """What the agent is told when ``args`` do not fit the tool's schema; None when they do."""
    error = first_error(tool.parameters, args)
    return None if error is None else f"error: invalid arguments for {tool.name} ({error[0]}): {error[1]}"


def call_tool(tool: Tool, ctx: ToolScope, args: Any) -> Observation:
    """Validate ``args`` against the tool's schema, run it, and turn every refusal into an observation."""
    problem = argument_problem(tool, args)
    if problem is not None:
        return Observation(problem, ok=False)
    try:
        return Observation(tool.handler(ctx, args))
    except (ToolError, PathEscape) as exc:
        return Observation(f"error: {exc}", ok=False)
