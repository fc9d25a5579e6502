"""``granularity serve-mcp``: a ``ToolSession`` served over stdio with the official MCP SDK.

The SDK's low-level server is used because the tool list is not fixed: it is whatever the
session offers now, and it changes on ``start_task``, on degradation and at a task's end. Each
change is announced both ways the protocol knows (a ``notifications/tools/list_changed`` on
handshake-era connections, a ``subscriptions/listen`` event on 2026-07-28 ones); the session
refuses stale calls either way. The low-level server does not validate arguments against a
tool's schema; the session's calls go through the executor, which does.

Given ``relist_seconds`` (the relay of a recorded benchmark run), the result of a call that changed
the list is held until the client has listed the tools again (``_Listings``). So the host's next
model request carries the new list every time, not only when its listing wins a race with the
result: a recorded session replays only when that request is the same.

This is the only module that imports the SDK, and only ``serve-mcp`` imports it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any, Protocol

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..core import __version__
from ..process import interrupts
from .tool_session import ToolReply

SERVER_NAME = "pytest-granularity"
INSTRUCTIONS = (
    "Granularity control: call start_task with the user's request first. The server routes it to micro tools or "
    "to macro skills and offers only those (and finish). When a macro fails, the server may switch you to micro "
    "tools in the same workspace, one way: use the tools the last result lists. Call finish when done."
)


class Served(Protocol):
    """What the server serves: a ``ToolSession``, or a relay to a benchmark run's own executor (``relay``)."""

    def tools(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: dict[str, Any]) -> ToolReply: ...


SETTLE_SECONDS = 0.25
"""After the client's listing is answered, before the call's result: time for the client to take the new
list in (opencode stores it a few event-loop turns after the answer), so it never reads the result first."""


class _Listings:
    """The tool listings answered so far, for a call that waits on the client's next one."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.count = 0
        self._answered = anyio.Event()

    def answered(self) -> None:
        self.count += 1
        self._answered.set()
        self._answered = anyio.Event()

    async def after(self, seen: int) -> None:
        """Until a listing after the first ``seen`` has been answered and taken in, for at most ``seconds``. A
        client that lets that pass without listing does not list on a change: it is not waited for again."""
        with anyio.move_on_after(self.seconds):
            while self.count <= seen:
                await self._answered.wait()
        if self.count <= seen:
            self.seconds = 0.0
            return
        await anyio.sleep(SETTLE_SECONDS)


def build_server(session: Served, instructions: str = INSTRUCTIONS, relist_seconds: float = 0.0) -> Server[Any]:
    """A low-level server whose tools are the session's offer of the moment.

    Calls run one at a time in a worker thread (macros and ``run_tests`` block); a listing waits
    for the call in progress, so it never shows a state half-way through a step.
    """
    bus = InMemorySubscriptionBus()
    lock = anyio.Lock()
    listings = _Listings(relist_seconds)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        async with lock:
            tools = [types.Tool.model_validate(t) for t in session.tools()]
        listings.answered()
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        async with lock:
            reply = await anyio.to_thread.run_sync(session.call, params.name, dict(params.arguments or {}))
            seen = listings.count
        if reply.tools_changed:
            await _announce_tools_changed(ctx, bus)
            if listings.seconds:
                await listings.after(seen)
        return types.CallToolResult(content=[types.TextContent(type="text", text=reply.text)], is_error=reply.is_error)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus),
    )


async def _announce_tools_changed(ctx: ServerRequestContext[Any], bus: InMemorySubscriptionBus) -> None:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await bus.publish(ToolsListChanged())
    else:
        await ctx.session.send_tool_list_changed()


def serve_stdio(
    session: Served, on_stop: Callable[[], None], instructions: str = INSTRUCTIONS, relist_seconds: float = 0.0
) -> None:
    """Serve ``session`` on stdin/stdout until the client closes the connection.

    On SIGTERM, the process groups of a call in progress (a macro's runtime, ``run_tests``) are
    killed so the call ends now, ``on_stop`` runs (it waits for that call, writes the open task's
    record and removes a copy), and the process exits at once: the SDK's stdin reader is a
    blocking read in a thread that only the client closing stdin would end.
    """

    def stop(signum: int, frame: Any) -> None:
        interrupts.cleanup()
        on_stop()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    server = build_server(session, instructions, relist_seconds)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(
                read_stream, write_stream, server.create_initialization_options(NotificationOptions(tools_changed=True))
            )

    anyio.run(main)
