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

Works on the MCP Python SDK 1.x (>= 1.24) and 2.x, so ripsight installs beside clients that pin
either: ``pip install 'ripsight[mcp]'``.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, cast

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import _core
from .limits import DEFAULT_LIMITS, MAX_CONCURRENT_CALLS, MCP_TIME_BUDGET, ToolLimits
from .pdf import PDF_TEXT_SCHEMA
from .registry import Registry
from .tools import ENGINE_RESULT_KEY
from .types import ToolCall, ToolResult
from .workspace import to_dict

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "OUTPUT_SCHEMAS",
    "bound_structured",
    "build_server",
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

# -- output schemas: the JSON shape of `ripsight.to_dict(result)` ---------------------------------


def output_schemas(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, dict[str, Any]]:
    """``outputSchema`` of each tool: the shape of `ripsight.to_dict` of the engine's result.

    Generated from the engine's one declaration of each result (``GrepResult.SCHEMA``...: field
    names, types and descriptions); only the line caps are stated as `limits` sets them."""
    schemas = {
        "glob": copy.deepcopy(_core.GlobResult.SCHEMA),
        "grep": copy.deepcopy(_core.GrepResult.SCHEMA),
        "read_file": copy.deepcopy(_core.ReadResult.SCHEMA),
        "outline": copy.deepcopy(_core.OutlineResult.SCHEMA),
        "find_definitions": copy.deepcopy(_core.DefinitionsResult.SCHEMA),
        "find_references": copy.deepcopy(_core.ReferencesResult.SCHEMA),
    }
    grep_text = schemas["grep"]["properties"]["lines"]["items"]["properties"]["text"]
    grep_text["description"] = (
        f"The line, cut to {limits.grep_line_chars} characters around the match (cut parts are "
        "replaced by …)."
    )
    read_text = schemas["read_file"]["properties"]["lines"]["items"]["properties"]["text"]
    read_text["description"] = (
        f"The line without its terminator, cut to {limits.read_line_chars} characters."
    )
    # The server holds the structured copy to the text's budget (`bound_structured`): say where
    # the entries it leaves out are counted.
    kept_out = " (also those left out to keep this structured copy within the result budget)"
    for tool in ("glob", "grep", "outline", "find_definitions", "find_references"):
        withheld = schemas[tool]["properties"]["withheld"]
        withheld["description"] = withheld["description"].rstrip(".") + kept_out + "."
    next_offset = schemas["read_file"]["properties"]["next_offset"]
    next_offset["description"] = next_offset["description"].rstrip(".") + kept_out + "."
    # read_file also answers with an image (its bytes are in the ImageContent, not here), a
    # page of notebook cells, a notebook cell's images, or a PDF's pages.
    schemas["read_file"] = {
        "type": "object",
        "anyOf": [
            schemas["read_file"],
            copy.deepcopy(_core.ImageResult.SCHEMA),
            copy.deepcopy(_core.NotebookResult.SCHEMA),
            copy.deepcopy(_core.NotebookImages.SCHEMA),
            copy.deepcopy(PDF_TEXT_SCHEMA),
        ],
    }
    return schemas


OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = output_schemas()


def tool_definitions(registry: Registry, structured: bool = True) -> list[dict[str, Any]]:
    """The registry's MCP definitions, each with its ``outputSchema`` (unless `structured` is
    False) when it has one."""
    tools = registry.definitions("mcp")
    schemas = output_schemas(registry.limits)
    for tool in tools if structured else ():
        schema = schemas.get(tool["name"])
        if schema is not None:
            tool["outputSchema"] = copy.deepcopy(schema)
    return tools


# -- structuredContent within the result budget --------------------------------------------------


def _json_chars(data: dict[str, Any]) -> int:
    # As `json.dumps` writes it by default, with ", " and ": ": the longer of the usual forms.
    return len(json.dumps(data, ensure_ascii=False))


def _page(data: dict[str, Any], key: str, keep: int) -> dict[str, Any]:
    """`data` with only the first `keep` entries of its list `key`, its counters (``withheld``,
    ``next_offset``) saying so."""
    entries = data[key]
    page = dict(data)
    page[key] = entries[:keep]
    if keep >= len(entries):
        return page
    if key in ("paths", "files", "symbols", "definitions", "references", "callers"):
        # glob; grep's files_with_matches and count modes; outline; find_definitions;
        # find_references
        page["withheld"] = data["withheld"] + len(entries) - keep
        page["next_offset"] = data["offset"] + keep
    elif "is_match" in entries[0]:  # grep content mode: context lines are not entries
        page["withheld"] = data["withheld"] + sum(1 for line in entries[keep:] if line["is_match"])
        page["next_offset"] = data["offset"] + sum(1 for line in entries[:keep] if line["is_match"])
    elif key == "pages":  # read_file on a PDF: read on from the first page left out
        page["next_page"] = entries[keep]["number"]
    else:  # read_file: read on after the last line (or notebook cell) kept
        page["next_offset"] = entries[keep]["number"]
    return page


def _grep_cut_points(lines: list[dict[str, Any]]) -> list[int]:
    # Cut right after a match line: no context line of a left-out match stays behind.
    return [0] + [i + 1 for i, line in enumerate(lines) if line["is_match"]]


def bound_structured(data: dict[str, Any], budget: int) -> dict[str, Any]:
    """The structured copy of a result (`ripsight.to_dict` of the engine's result) held to the
    text's budget: its JSON is at most `budget` characters.

    A longer page keeps its first entries (paths, files, symbols, definitions, matching lines
    with their context, or read lines) and counts the rest in ``withheld`` (read_file: ``next_offset`` reads on from the
    first line left out), so paging from the structured copy alone finds everything. A page
    that cannot fit even with no entries has its echoed ``pattern`` cut.
    """
    if _json_chars(data) <= budget:
        return data
    keys = (
        "paths",
        "files",
        "symbols",
        "references",
        "callers",
        "definitions",
        "lines",
        "cells",
        "pages",
    )
    key = next((k for k in keys if data.get(k)), None)
    if key is None:
        page = dict(data)
    else:
        entries = data[key]
        is_grep_lines = key == "lines" and "is_match" in entries[0]
        points = _grep_cut_points(entries) if is_grep_lines else list(range(len(entries) + 1))
        # Binary search for the most entries that fit: the size grows with the entries kept.
        low, high = 0, len(points) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if _json_chars(_page(data, key, points[middle])) <= budget:
                low = middle
            else:
                high = middle - 1
        page = _page(data, key, points[low])
    over = _json_chars(page) - budget
    if over > 0 and isinstance(page.get("pattern"), str):
        page["pattern"] = page["pattern"][: max(0, len(page["pattern"]) - over - 1)]
    return page


# -- the server ----------------------------------------------------------------------------------


def _new_token() -> Any:
    """A fresh engine cancel token, or None while the engine offers none."""
    token_class = getattr(_core, "CancelToken", None)
    return token_class() if token_class is not None else None


class _Call:
    """One tool call: its cancel token, when (and why) it was cancelled, and whether its worker
    thread started and finished (guarded by `_InFlight`'s lock)."""

    __slots__ = ("cancelled_at", "finished", "name", "reason", "started", "token")

    def __init__(self, name: str) -> None:
        self.name = name
        self.token = _new_token()
        self.cancelled_at: float | None = None
        self.reason = ""
        self.started = False
        self.finished = False

    def cancel(self, reason: str) -> None:
        if self.cancelled_at is None:
            self.cancelled_at = time.perf_counter()
            self.reason = reason
        if self.token is not None:
            self.token.cancel()


class _InFlight:
    """The calls not yet finished, so closing stdin can cancel them all (from any thread) and
    the exit can wait for their threads.

    A call counts from its request until its worker thread finishes, or until its request is
    given up when no worker started: a call the client cancelled is answered at once, but its
    thread runs until the engine sees the token, and the exit waits for that (so the engine's
    threads are stopped, not killed). A call that arrives after stdin closed is cancelled at
    once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._calls: set[_Call] = set()
        self._closed_because: str | None = None

    def add(self, call: _Call) -> None:
        with self._lock:
            self._calls.add(call)
            closed_because = self._closed_because
        if closed_because is not None:
            call.cancel(closed_because)

    def begin(self, call: _Call) -> bool:
        """In the worker thread: False when the request was already given up (do nothing)."""
        with self._lock:
            call.started = not call.finished
            return call.started

    def end(self, call: _Call) -> None:
        with self._lock:
            call.finished = True
            self._calls.discard(call)
            self._idle.notify_all()

    def give_up(self, call: _Call) -> None:
        """The request is over; ends the call unless its worker started (the worker ends it)."""
        with self._lock:
            if call.started:
                return
        self.end(call)

    @property
    def closed(self) -> bool:
        """True once `cancel_all` ran (the client closed stdin)."""
        with self._lock:
            return self._closed_because is not None

    def cancel_all(self, reason: str) -> int:
        with self._lock:
            self._closed_because = reason
            calls = list(self._calls)
        for call in calls:
            call.cancel(reason)
        return len(calls)

    def wait_idle(self, timeout: float) -> bool:
        """Blocks until every call finished (True) or `timeout` seconds passed (False)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._calls, timeout)


def _call_result(result: ToolResult, structured_content: bool, budget: int) -> types.CallToolResult:
    structured: dict[str, Any] | None = None
    if structured_content and not result.is_error:
        engine_result = result.meta.get(ENGINE_RESULT_KEY)
        if engine_result is not None:
            try:
                structured = bound_structured(to_dict(engine_result), budget)
            except Exception:  # the text still answers the call
                logger.exception("%s: the typed result could not be converted", result.name)
        elif result.name in OUTPUT_SCHEMAS:
            logger.warning("%s returned no typed result; structuredContent left out", result.name)
    # Validated from the wire form: the field names differ between SDK 1.x and 2.x models.
    content: list[dict[str, Any]] = [{"type": "text", "text": result.content}]
    content += [
        {"type": "image", "data": image.base64, "mimeType": image.media_type}
        for image in result.images
    ]
    return types.CallToolResult.model_validate(
        {
            "content": content,
            "structuredContent": structured,
            "isError": result.is_error,
        }
    )


class _Tools:
    """The protocol-independent half of the server: listing and answering tool calls."""

    def __init__(
        self, registry: Registry, max_concurrent_calls: int, structured_content: bool
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
        self.limiter = anyio.CapacityLimiter(max_concurrent_calls)
        self.in_flight = _InFlight()

    def list(self) -> list[types.Tool]:
        return [tool.model_copy(deep=True) for tool in self.tools]

    async def call(
        self, request_id: Any, name: str, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        call = ToolCall(id=str(request_id), name=name, arguments=arguments or {})
        state = _Call(name)
        budget = self.registry.limits.max_result_chars

        def answer() -> tuple[ToolResult, types.CallToolResult] | None:
            # Runs in a worker thread; the token goes with the call to the tool and from there
            # to the engine. Converting the typed result is Python work too: off the event loop.
            if not self.in_flight.begin(state):
                return None  # given up before this thread started: nobody waits for it
            logger.debug("%s running", name)
            try:
                result = self.registry.execute(call, cancel=state.token)
                return result, _call_result(result, self.structured_content, budget)
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
        logger.info(
            "%s %s in %.1f ms%s",
            name,
            "failed" if result.is_error else "answered",
            result.meta.get("duration_ms", 0.0),
            f" ({result.meta.get('error_type')})" if result.is_error else "",
        )
        return reply


def _instructions(registry: Registry) -> str:
    root = registry.workspace.root if registry.workspace is not None else None
    return (
        "Read-only tools over one directory"
        + (f" ({root})" if root else "")
        + ": glob finds files by name pattern, grep searches their contents with a regex, "
        "read_file reads a file's numbered lines. Paths are relative to that directory; "
        "nothing outside it can be read, and results are bounded (each says how to get more)."
    )


#: SDK 2.x takes handlers as constructor arguments; SDK 1.x registers them with decorators.
_SDK_HAS_DECORATORS = hasattr(Server, "call_tool")


def _build(tools: _Tools, name: str) -> Server[Any]:
    from . import __version__

    instructions = _instructions(tools.registry)
    # Typed as Any: the constructor and the registration differ between the SDK majors, and the
    # type checker sees only the installed one.
    server_class: Any = Server
    if _SDK_HAS_DECORATORS:  # SDK 1.x
        server = server_class(name, version=__version__, instructions=instructions)

        async def list_tools() -> list[types.Tool]:
            return tools.list()

        async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await tools.call(server.request_context.request_id, tool, arguments)

        server.list_tools()(list_tools)
        # validate_input=False: the registry checks arguments and says how to fix them.
        server.call_tool(validate_input=False)(call_tool)
        return cast("Server[Any]", server)

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.list())

    async def on_call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return await tools.call(ctx.request_id, params.name, params.arguments)

    return cast(
        "Server[Any]",
        server_class(
            name,
            version=__version__,
            title="ripsight",
            description="Fast, bounded, read-only glob, grep and read_file for coding agents.",
            instructions=instructions,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
        ),
    )


def build_server(
    registry: Registry,
    *,
    name: str = "ripsight",
    max_concurrent_calls: int = MAX_CONCURRENT_CALLS,
    structured_content: bool = True,
) -> Server[Any]:
    """An MCP `Server` exposing the registry's tools; run it with `serve_stdio` or the SDK.

    Args:
        registry: the tools and their workspace; its session is made to remember no reads and
            no answered calls (`Registry.forget_between_calls`). Each call runs with its own
            engine cancel token (`ToolContext.cancel`).
        name: the server name reported at initialization.
        max_concurrent_calls: tool calls running at the same time in worker threads; further
            requests wait their turn.
        structured_content: declare an ``outputSchema`` per tool and return the typed result
            as ``structuredContent`` beside the text (default), held to the text's budget.
            Some clients hand the model the structured JSON in place of the text; False keeps
            them on the text with its paging sentences.
    """
    return _build(_Tools(registry, max_concurrent_calls, structured_content), name)


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
) -> None:
    """Serves the registry's tools on stdin/stdout until the client closes stdin; calls still
    running then are cancelled."""
    tools = _Tools(registry, max_concurrent_calls, structured_content)
    server = _build(tools, "ripsight")

    def on_eof() -> None:
        cancelled = tools.in_flight.cancel_all("the client closed stdin")
        logger.info("stdin closed; %d call(s) in flight cancelled", cancelled)

    # wrap_file only calls readline (and what __getattr__ forwards) on the object it wraps.
    stdin = anyio.wrap_file(_WatchedStdin(on_eof))  # type: ignore[arg-type]
    try:
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
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


def _only_closed_streams(error: BaseException) -> bool:
    """True for anyio's ClosedResourceError, or a group of errors holding nothing else."""
    if isinstance(error, anyio.ClosedResourceError):
        return True
    nested: tuple[BaseException, ...] = getattr(error, "exceptions", ())
    return bool(nested) and all(_only_closed_streams(inner) for inner in nested)


#: Seconds the server waits at exit for the worker threads of cancelled calls to stop.
SHUTDOWN_GRACE = 5.0
