"""`ripsight mcp`: the registry's tools served over MCP (stdio), on the official MCP Python SDK.

    >>> registry = default_registry("/path/to/repo")
    >>> anyio.run(serve_stdio, registry)          # what `ripsight mcp --root /path/to/repo` runs

The server is a thin adapter: tool names, descriptions, input schemas and annotations come from
`Registry.definitions("mcp")`; every call goes through the registry's never-throw `execute`
(argument checking, guidance on errors, middle truncation), so an MCP client sees exactly the
text an embedded agent would. Beside that text, a successful call returns the engine's typed
result (`ripsight.to_dict`) as ``structuredContent``, described by an ``outputSchema`` per tool.

The ``structuredContent`` obeys the same budget as the text (`ToolLimits.max_result_chars`):
when the JSON of a page is longer, the page is shortened (the entries left out are counted in
``withheld``, or ``next_offset`` reads on), so a client that hands the model the structured copy
instead of the text does not flood its context. The text stays the full model-facing answer.

Calls run in worker threads (the engine releases the GIL), so requests in flight at the same
time are served concurrently. Each call runs with its own engine cancel token: a call the client
cancels (``notifications/cancelled``) or leaves (stdin closed) stops its search. Logging goes to
stderr; stdout carries only the protocol.

The client shapes the session, on the protocol versions that still have each feature: started
without a root (`build_server`'s ``client_roots``), the server serves the client's workspace
roots (``roots/list``), several as `ripsight.roots.Roots`; a call that runs longer than
`MCP_PROGRESS_AFTER` sends ``notifications/progress`` to a client that gave a progress token; a
client that sets a log level gets the server's line for each call. A client that shows the model
only ``structuredContent`` (`TEXT_ONLY_CLIENTS`, from `ripsight.mcp_clients`) gets the text
only.

A call the registry's policy answers *ask* (``ripsight mcp --ask GLOB``) is put to the person
through the negotiated protocol: on 2026-07-28 the call answers with an input request (an
``InputRequiredResult`` holding an elicitation) and runs when the client calls again with the
person's answer; on older versions the server sends ``elicitation/create`` and waits. A client
that declares no elicitation gets a refusal that says how to allow such calls.

This module holds the tool call path and the SDK wiring; beside it, `ripsight.mcp_results` makes
the output schemas and the structured copy, `ripsight.mcp_session` keeps what the client
declared (its version, name, roots, log level), and `ripsight.mcp_inflight` the calls running.

Works on the MCP Python SDK 1.x (>= 1.24) and 2.x, so ripsight installs beside clients that pin
either: ``pip install 'ripsight[mcp]'``.
"""

from __future__ import annotations

import io
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, cast

import anyio
import anyio.lowlevel
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import codes
from .batches import WAITING_THREADS
from .limits import MAX_CONCURRENT_CALLS, MCP_PROGRESS_AFTER, MCP_TIME_BUDGET
from .mcp_approval import ASKING, INPUT_REQUEST_VERSION, Asker, Asking
from .mcp_clients import TEXT_ONLY_CLIENTS
from .mcp_inflight import Call, InFlight
from .mcp_results import (
    NOTES_FIELD,
    OUTPUT_SCHEMAS,
    bound_structured,
    call_result,
    output_schema,
    output_schemas,
    tool_definitions,
)
from .mcp_session import ClientLog, ClientRoots, client_name, progress_text, progress_token
from .registry import Registry
from .roots import Roots
from .types import ToolCall, ToolResult
from .workspace import Workspace

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "NOTES_FIELD",
    "OUTPUT_SCHEMAS",
    "TEXT_ONLY_CLIENTS",
    "bound_structured",
    "build_server",
    "output_schema",
    "output_schemas",
    "serve_stdio",
    "tool_definitions",
]

logger = logging.getLogger("ripsight.mcp")

#: Seconds a walk or search of `ripsight mcp` may take by default (the engine's
#: ``LIMITS["mcp_time_budget_seconds"]``). Common MCP clients give up on a call after 5 s (the
#: OpenAI Agents SDK's default); a partial answer marked incomplete within that time serves the
#: model better than a client-side timeout.
DEFAULT_TIME_BUDGET = MCP_TIME_BUDGET


class _Tools:
    """The protocol-independent half of the server: listing and answering tool calls."""

    def __init__(
        self,
        registry: Registry,
        max_concurrent_calls: int,
        structured_content: bool,
        client_roots: Callable[[str], Workspace] | None = None,
    ) -> None:
        # It outlives conversations (Claude Desktop keeps it running across chats) and cannot
        # tell them apart: every read and every call is answered in full.
        registry.forget_between_calls()
        self.registry = registry
        self.structured_content = structured_content
        self.tools = [
            types.Tool.model_validate(tool)
            for tool in tool_definitions(registry, structured=structured_content)
        ]
        self.text_tools = [
            types.Tool.model_validate(tool) for tool in tool_definitions(registry, structured=False)
        ]
        # The bound is on tools running (`slot`); a call waiting for a person's approval holds
        # a worker thread but no slot, so the other calls run meanwhile.
        self.slot = threading.BoundedSemaphore(max_concurrent_calls)
        self.limiter = anyio.CapacityLimiter(max_concurrent_calls + WAITING_THREADS)
        self.in_flight = InFlight()
        self.roots = ClientRoots(registry, client_roots)
        self.log = ClientLog()
        #: Starts a background task (`serve_stdio`'s task group), or None outside it.
        self.spawn: Callable[..., Any] | None = None
        # The person is asked through the client, unless the host gave its own callback.
        self.asker = Asker(registry.approval_deadline)
        if registry.approve is None:
            registry.approve = self.asker

    def _structured(self, session: Any) -> bool:
        """Whether this client gets ``outputSchema`` and ``structuredContent``."""
        return self.structured_content and client_name(session) not in TEXT_ONLY_CLIENTS

    async def list(self, session: Any = None) -> list[types.Tool]:
        await self.roots.refresh(session)
        tools = self.tools if self._structured(session) else self.text_tools
        return [tool.model_copy(deep=True) for tool in tools]

    def asking(
        self,
        session: Any,
        request_id: Any,
        protocol_version: str | None = None,
        request_state: str | None = None,
        input_responses: dict[str, Any] | None = None,
    ) -> Asking:
        """How this call reaches the person (in the event loop, for `anyio.from_thread`)."""
        input_request = protocol_version is not None and protocol_version >= INPUT_REQUEST_VERSION
        answers = self.asker.open(request_state, input_responses) if input_request else {}
        token = anyio.lowlevel.current_token()
        return Asking(session, request_id, input_request, answers, loop=token)

    async def call(
        self,
        request_id: Any,
        name: str,
        arguments: dict[str, Any] | None,
        session: Any = None,
        meta: Any = None,
        asking: Asking | None = None,
    ) -> Any:
        """The call's result: a ``CallToolResult``, or an ``InputRequiredResult`` when it
        needs the person's approval and the negotiated version asks through one."""
        if session is not None:
            await self.roots.refresh(session)
        token = progress_token(meta) if session is not None else None
        state = Call(name)
        if token is None:
            return await self._call(request_id, state, arguments, session, asking)
        done = anyio.Event()
        reply: Any = None
        async with anyio.create_task_group() as group:
            group.start_soon(self._progress, session, token, request_id, state, done, asking)
            try:
                reply = await self._call(request_id, state, arguments, session, asking)
            finally:
                done.set()
        assert reply is not None
        return reply

    async def _progress(
        self,
        session: Any,
        token: str | int,
        request_id: Any,
        state: Call,
        done: anyio.Event,
        asking: Asking | None = None,
    ) -> None:
        """``notifications/progress`` every `MCP_PROGRESS_AFTER` seconds until the call ends:
        the seconds it has run (the progress, no total), the files its search has searched so
        far (the engine counts them on the call's token) and what it waits for: the person's
        approval (`asking`), the indexes."""
        started = time.perf_counter()
        while True:
            with anyio.move_on_after(MCP_PROGRESS_AFTER):
                await done.wait()
            if done.is_set():
                return
            elapsed = time.perf_counter() - started
            searched = getattr(state.token, "files_searched", None)
            since = asking.waiting_since if asking is not None else None
            waiting = None if since is None else time.monotonic() - since
            text = progress_text(state.name, elapsed, self.registry.workspace, searched, waiting)
            try:
                await session.send_progress_notification(
                    token, round(elapsed, 3), None, text, related_request_id=str(request_id)
                )
            except Exception:  # progress never fails a call
                logger.debug("a progress notification could not be sent", exc_info=True)
                return

    async def _call(
        self,
        request_id: Any,
        state: Call,
        arguments: dict[str, Any] | None,
        session: Any,
        asking: Asking | None,
    ) -> Any:
        name = state.name
        call = ToolCall(id=str(request_id), name=name, arguments=arguments or {})
        budget = self.registry.limits.max_result_chars
        structured = self._structured(session)

        def answer() -> tuple[ToolResult, types.CallToolResult] | None:
            # Runs in a worker thread; the token goes with the call to the tool and from there
            # to the engine. Converting the typed result is Python work too: off the event loop.
            if not self.in_flight.begin(state):
                return None  # given up before this thread started: nobody waits for it
            logger.debug("%s running", name)
            ASKING.set(asking)
            try:
                result = self.registry.execute(call, cancel=state.token, slot=self.slot)
                spec = self.registry.get(name)
                return result, call_result(result, spec, structured, budget)
            finally:
                if state.cancelled_at is not None:
                    logger.info(
                        "%s stopped %.1f ms after it was cancelled (%s)",
                        name,
                        (time.perf_counter() - state.cancelled_at) * 1000.0,
                        state.reason,
                    )
                self.in_flight.end(state)

        self.in_flight.add(state)
        logger.debug("%s started", name)
        try:
            # abandon_on_cancel: a cancelled call answers the protocol at once; its thread
            # sees the token and stops the engine (logged above when it does).
            answered = await anyio.to_thread.run_sync(
                answer, limiter=self.limiter, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            state.cancel("the client cancelled the call or closed the connection")
            raise
        finally:
            self.in_flight.give_up(state)
        assert answered is not None  # the worker ran: the request was not given up
        result, reply = answered
        if result.meta.get("code") == codes.APPROVAL_PENDING and asking and asking.pending:
            logger.info("%s waits for the person's approval (input request)", name)
            return types.InputRequiredResult.model_validate(
                {
                    "inputRequests": {
                        key: request.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for key, request in asking.pending.items()
                    },
                    "requestState": self.asker.leave_open(list(asking.pending)),
                }
            )
        line = "{} {} in {:.1f} ms{}".format(
            name,
            "failed" if result.is_error else "answered",
            result.meta.get("duration_ms", 0.0),
            f" ({result.meta.get('error_type')})" if result.is_error else "",
        )
        logger.info("%s", line)
        if session is not None:
            await self.log.send(session, "info", line, request_id)
        return reply


def _instructions(registry: Registry, client_roots: bool = False) -> str:
    """The server's instructions: the registry's tools, each with its title (from the specs),
    and the directories they work in (one root, several, or the client's folders)."""
    workspace = registry.workspace
    names, read_only = [], True
    for name in registry.names:
        spec = registry.get(name)
        title = spec.title if spec is not None else None
        read_only = read_only and spec is not None and spec.effect == "read"
        names.append(f"{name} ({title[0].lower() + title[1:]})" if title else name)
    kind = "Read-only tools" if read_only else "Tools"
    tools = f": {', '.join(names)}."
    if client_roots:
        fallback = f" ({workspace.root} while the client declares none)" if workspace else ""
        return (
            f"{kind} over your workspace's folders{fallback}{tools} With one folder, paths are "
            "relative to it; with several, every path begins with a folder's name "
            "(web/src/app.ts) and a search without a path covers them all. Nothing outside "
            "them can be read, and results are bounded (each says how to get more)."
        )
    if isinstance(workspace, Roots):
        roots = ", ".join(f"{name} ({ws.root})" for name, ws in workspace.workspaces.items())
        return (
            f"{kind} over several directories, each named: {roots}{tools} Every path "
            "begins with a directory's name (web/src/app.ts); without a path, a search covers "
            "them all. Nothing outside them can be read, and results are bounded (each says "
            "how to get more)."
        )
    root = workspace.root if workspace is not None else None
    return (
        f"{kind} over one directory"
        + (f" ({root})" if root else "")
        + f"{tools} Paths are relative to that directory; nothing outside it can be read, and "
        "results are bounded (each says how to get more)."
    )


#: SDK 2.x takes handlers as constructor arguments; SDK 1.x registers them with decorators.
_SDK_HAS_DECORATORS = hasattr(Server, "call_tool")


def _build(tools: _Tools, name: str) -> Server[Any]:
    from . import __version__

    instructions = _instructions(tools.registry, tools.roots.open_root is not None)
    # Typed as Any: the constructor and the registration differ between the SDK majors, and the
    # type checker sees only the installed one.
    server_class: Any = Server
    if _SDK_HAS_DECORATORS:  # SDK 1.x
        server = server_class(name, version=__version__, instructions=instructions)

        async def list_tools() -> list[types.Tool]:
            return await tools.list(server.request_context.session)

        async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
            context = server.request_context
            asking = tools.asking(context.session, context.request_id)
            return cast(
                "types.CallToolResult",
                await tools.call(
                    context.request_id, tool, arguments, context.session, context.meta, asking
                ),
            )

        async def set_level(level: Any) -> None:
            tools.log.set_level(level)

        async def roots_changed(notification: Any) -> None:
            tools.roots.changed()

        server.list_tools()(list_tools)
        # validate_input=False: the registry checks arguments and says how to fix them.
        server.call_tool(validate_input=False)(call_tool)
        server.set_logging_level()(set_level)
        server.notification_handlers[types.RootsListChangedNotification] = roots_changed
        return cast("Server[Any]", server)

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await tools.list(ctx.session))

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        asking = tools.asking(
            ctx.session,
            ctx.request_id,
            getattr(ctx, "protocol_version", None),
            getattr(params, "request_state", None),
            getattr(params, "input_responses", None),
        )
        return await tools.call(
            ctx.request_id, params.name, params.arguments, ctx.session, ctx.meta, asking
        )

    async def on_set_level(ctx: Any, params: Any) -> types.EmptyResult:
        tools.log.set_level(params.level)
        return types.EmptyResult()

    async def on_roots_changed(ctx: Any, params: Any) -> None:
        tools.roots.changed()

    server = server_class(
        name,
        version=__version__,
        title="ripsight",
        # Every tool the registry serves (nine built in), not the first three only.
        description=f"Fast, bounded tools for coding agents: {', '.join(tools.registry.names)}.",
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
    # Registered apart from the constructor, whose deprecation warnings (SEP-2577) would reach
    # the user's stderr: both are served only on the protocol versions that have them.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, on_set_level)
    server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, on_roots_changed
    )

    async def on_initialized(ctx: Any, params: Any) -> None:
        # Ask for the roots at once (in the background: the answer comes through the loop
        # that runs this handler); a request that comes first waits for them.
        if tools.spawn is not None and tools.roots.stale:
            tools.spawn(tools.roots.refresh_quietly, ctx.session)

    server.add_notification_handler(
        "notifications/initialized", types.NotificationParams, on_initialized
    )
    return cast("Server[Any]", server)


def build_server(
    registry: Registry,
    *,
    name: str = "ripsight",
    max_concurrent_calls: int = MAX_CONCURRENT_CALLS,
    structured_content: bool = True,
    client_roots: Callable[[str], Workspace] | None = None,
) -> Server[Any]:
    """An MCP `Server` exposing the registry's tools; run it with `serve_stdio` or the SDK.

    Args:
        registry: the tools and their workspace; its session is made to remember no reads and
            no answered calls (`Registry.forget_between_calls`). Each call runs with its own
            engine cancel token (`ToolContext.cancel`).
        name: the server name reported at initialization.
        max_concurrent_calls: tool calls running at the same time in worker threads; further
            requests wait their turn (a call waiting for a person's approval does not count).
        structured_content: declare an ``outputSchema`` per tool and return the typed result
            as ``structuredContent`` beside the text (default), held to the text's budget.
            Some clients hand the model the structured JSON in place of the text; False keeps
            them on the text with its paging sentences (`TEXT_ONLY_CLIENTS` always are).
        client_roots: opens a root directory as a `Workspace`; given, the server serves the
            roots the client declares (``roots/list``, on protocol versions before 2026-07-28),
            one workspace per root, and the registry's workspace while the client has none.
    """
    tools = _Tools(registry, max_concurrent_calls, structured_content, client_roots)
    return _build(tools, name)


class _WatchedStdin:
    """The process's stdin as UTF-8 text lines; at end of file (the client closed it or went
    away) it calls `on_eof` once.

    Hand-written because SDK 1.x before 1.2x lets calls in flight run to completion after the
    client leaves; cancelling their tokens here stops their searches under every SDK version.
    """

    def __init__(self, on_eof: Callable[[], None]) -> None:
        self._lines = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        self._on_eof: Callable[[], None] | None = on_eof

    def readline(self) -> str:
        line = self._lines.readline()
        if not line and self._on_eof is not None:
            on_eof, self._on_eof = self._on_eof, None
            on_eof()
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lines, name)


async def serve_stdio(
    registry: Registry,
    *,
    max_concurrent_calls: int = MAX_CONCURRENT_CALLS,
    structured_content: bool = True,
    client_roots: Callable[[str], Workspace] | None = None,
) -> None:
    """Serves the registry's tools on stdin/stdout until the client closes stdin; calls still
    running then are cancelled. `client_roots` as `build_server`'s; the roots opened for the
    client are closed at exit."""
    tools = _Tools(registry, max_concurrent_calls, structured_content, client_roots)
    server = _build(tools, "ripsight")

    def on_eof() -> None:
        cancelled = tools.in_flight.cancel_all("the client closed stdin")
        logger.info("stdin closed; %d call(s) in flight cancelled", cancelled)

    # wrap_file only calls readline (and what __getattr__ forwards) on the object it wraps.
    stdin = anyio.wrap_file(_WatchedStdin(on_eof))  # type: ignore[arg-type]
    try:
        async with (
            stdio_server(stdin=stdin) as (read_stream, write_stream),
            anyio.create_task_group() as background,
        ):
            tools.spawn = background.start_soon
            await server.run(read_stream, write_stream, server.create_initialization_options())
            tools.spawn = None
            background.cancel_scope.cancel()
    except Exception as error:
        # SDK 1.x before 1.2x sends the answer of a call that ends after the client left down
        # the closed stream, and fails the session with ClosedResourceError: nobody is there
        # to read it, so that is a normal exit.
        if not (tools.in_flight.closed and _only_closed_streams(error)):
            raise
        logger.debug("answers of calls that ended after stdin closed were dropped")
    # Cancelled calls stop within milliseconds once the engine checks its token; a call that
    # cannot (a tool without a token) is left behind after SHUTDOWN_GRACE seconds rather than
    # holding the exit.
    if not await anyio.to_thread.run_sync(tools.in_flight.wait_idle, SHUTDOWN_GRACE):
        logger.warning("exiting with calls still running after %.0f s", SHUTDOWN_GRACE)
    tools.roots.close()


def _only_closed_streams(error: BaseException) -> bool:
    """True for anyio's ClosedResourceError, or a group of errors holding nothing else."""
    if isinstance(error, anyio.ClosedResourceError):
        return True
    nested: tuple[BaseException, ...] = getattr(error, "exceptions", ())
    return bool(nested) and all(_only_closed_streams(inner) for inner in nested)


#: Seconds the server waits at exit for the worker threads of cancelled calls to stop.
SHUTDOWN_GRACE = 5.0
