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
only ``structuredContent`` (`TEXT_ONLY_CLIENTS`) gets the text only.

A call the registry's policy answers *ask* (``ripsight mcp --ask GLOB``) is put to the person
through the negotiated protocol: on 2026-07-28 the call answers with an input request (an
``InputRequiredResult`` holding an elicitation) and runs when the client calls again with the
person's answer; on older versions the server sends ``elicitation/create`` and waits. A client
that declares no elicitation gets a refusal that says how to allow such calls.

Works on the MCP Python SDK 1.x (>= 1.24) and 2.x, so ripsight installs beside clients that pin
either: ``pip install 'ripsight[mcp]'``.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any, cast
from urllib.parse import unquote, urlparse

import anyio
import anyio.lowlevel
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import _core, codes
from .batches import WAITING_THREADS
from .limits import (
    DEFAULT_LIMITS,
    MAX_CONCURRENT_CALLS,
    MCP_PROGRESS_AFTER,
    MCP_ROOTS_WAIT,
    MCP_TIME_BUDGET,
    ToolLimits,
)
from .mcp_approval import ASKING, INPUT_REQUEST_VERSION, Asker, Asking
from .registry import Registry
from .roots import Roots
from .tools import ENGINE_RESULT_KEY, builtin_tools
from .types import PAGE_COUNTERS, PageBy, ToolCall, ToolResult, ToolSpec
from .workspace import Workspace, to_dict

__all__ = [
    "DEFAULT_TIME_BUDGET",
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

# -- output schemas: the JSON shape of `ripsight.to_dict(result)` ---------------------------------

#: What the server adds to the description of the field that says where paging goes on: it
#: holds the structured copy to the text's budget (`bound_structured`).
_KEPT_OUT = " (also those left out to keep this structured copy within the result budget)"


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a union schema (read_file's), else the schema itself."""
    return list(schema.get("anyOf", [schema]))


def output_schema(spec: ToolSpec) -> dict[str, Any] | None:
    """The ``outputSchema`` of a tool: the shape of `ripsight.to_dict` of its typed result
    (`ToolSpec.output_schema`, generated from the engine's one declaration of each result:
    field names, types and descriptions), each paging counter saying that it also counts what
    the server leaves out; None for a tool without a typed result."""
    if spec.output_schema is None:
        return None
    schema = copy.deepcopy(dict(spec.output_schema))
    for branch in _branches(schema):
        properties = branch.get("properties", {})
        counters = {PAGE_COUNTERS[by] for key, by in spec.paging.items() if key in properties}
        for counter in sorted(counters):
            if counter in properties:
                prop = properties[counter]
                prop["description"] = prop["description"].rstrip(".") + _KEPT_OUT + "."
    return schema


def output_schemas(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, dict[str, Any]]:
    """``outputSchema`` of each built-in tool that has one (see `output_schema`), with the
    line caps `limits` sets."""
    schemas = {spec.name: output_schema(spec) for spec in builtin_tools(limits)}
    return {name: schema for name, schema in schemas.items() if schema is not None}


OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = output_schemas()


def tool_definitions(registry: Registry, structured: bool = True) -> list[dict[str, Any]]:
    """The registry's MCP definitions, each with its ``outputSchema`` (unless `structured` is
    False) when it has one."""
    tools = registry.definitions("mcp")
    for tool in tools if structured else ():
        spec = registry.get(tool["name"])
        schema = output_schema(spec) if spec is not None else None
        if schema is not None:
            tool["outputSchema"] = schema
    return tools


# -- structuredContent within the result budget --------------------------------------------------


def _json_chars(data: dict[str, Any]) -> int:
    # As `json.dumps` writes it by default, with ", " and ": ": the longer of the usual forms.
    return len(json.dumps(data, ensure_ascii=False))


def _page(data: dict[str, Any], key: str, by: PageBy, keep: int) -> dict[str, Any]:
    """`data` with only the first `keep` entries of its list `key`, its counters (``withheld``,
    ``next_offset``, ``next_page``) saying so, as `by` says they page."""
    entries = data[key]
    page = dict(data)
    page[key] = entries[:keep]
    if keep >= len(entries):
        return page
    if by == "count":  # glob; grep's files_with_matches and count modes; outline; definitions
        page["withheld"] = data["withheld"] + len(entries) - keep
        page["next_offset"] = data["offset"] + keep
    elif by == "matches":  # grep content mode: only counted matches are entries
        page["withheld"] = data["withheld"] + sum(1 for line in entries[keep:] if line["counted"])
        page["next_offset"] = data["offset"] + sum(1 for line in entries[:keep] if line["counted"])
    elif by == "page":  # read_file on a PDF: read on from the first page left out
        page["next_page"] = entries[keep]["number"]
    elif by == "rank":  # repo_map: the lower-ranked files left out are counted
        page["files_left"] = data["files_left"] + len(entries) - keep
    else:  # read_file: read on at the first line (or notebook cell) left out
        page["next_offset"] = entries[keep]["number"]
    return page


def _grep_cut_points(lines: list[dict[str, Any]]) -> list[int]:
    # Cut right after a match line: no context line of a left-out match stays behind.
    return [0] + [i + 1 for i, line in enumerate(lines) if line["counted"]]


def _paging_of(data: dict[str, Any]) -> Mapping[str, PageBy]:
    """The paging of the built-in tool whose typed result `data` is: the first whose output
    schema has a branch with every field of `data`."""
    fields = set(data)
    for spec in builtin_tools():
        schema = spec.output_schema
        if schema is not None and any(
            fields <= set(branch.get("properties", ())) for branch in _branches(dict(schema))
        ):
            return spec.paging
    return {}


def bound_structured(
    data: dict[str, Any], budget: int, paging: Mapping[str, PageBy] | None = None
) -> dict[str, Any]:
    """The structured copy of a result (`ripsight.to_dict` of the engine's result) held to the
    text's budget: its JSON is at most `budget` characters.

    A longer page keeps its first entries (of the first list `paging` names that has any:
    paths, files, symbols, definitions, matching lines with their context, read lines, cells
    or pages) and says in its counters where the rest is (``withheld`` and ``next_offset``, or
    for read_file the ``next_offset`` or ``next_page`` of the first entry left out), so paging
    from the structured copy alone finds everything. A page that cannot fit even with no
    entries has its echoed ``pattern`` cut. `paging` is the tool's (`ToolSpec.paging`);
    default: that of the built-in tool whose result `data` is.
    """
    if _json_chars(data) <= budget:
        return data
    if paging is None:
        paging = _paging_of(data)
    key = next((k for k in paging if data.get(k)), None)
    if key is None:
        page = dict(data)
    else:
        by = paging[key]
        entries = data[key]
        points = _grep_cut_points(entries) if by == "matches" else list(range(len(entries) + 1))
        # Binary search for the most entries that fit: the size grows with the entries kept.
        low, high = 0, len(points) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if _json_chars(_page(data, key, by, points[middle])) <= budget:
                low = middle
            else:
                high = middle - 1
        page = _page(data, key, by, points[low])
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


def _call_result(
    result: ToolResult, spec: ToolSpec | None, structured_content: bool, budget: int
) -> types.CallToolResult:
    structured: dict[str, Any] | None = None
    if structured_content and not result.is_error and spec is not None:
        engine_result = result.meta.get(ENGINE_RESULT_KEY)
        if engine_result is not None:
            try:
                structured = bound_structured(to_dict(engine_result), budget, spec.paging)
            except Exception:  # the text still answers the call
                logger.exception("%s: the typed result could not be converted", result.name)
        elif spec.output_schema is not None:
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


# -- what the client is and declared ------------------------------------------------------------

#: The first protocol version without roots and logging (SEP-2577 deprecates them): a client on
#: it or later is never asked for its roots and never sent log messages.
_WITHOUT_ROOTS_AND_LOGGING = "2026-07-28"

#: Clients (their ``clientInfo.name``) that hand the model a tool result's ``structuredContent``
#: in place of its text (Claude Code, claude-code#79944): they get the text only, no
#: ``outputSchema`` and no ``structuredContent``, so the model reads the bounded text with its
#: paging hints and notes.
TEXT_ONLY_CLIENTS = frozenset({"claude-code"})

#: The levels of MCP logging (RFC 5424), lowest first.
_LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _client_params(session: Any) -> Any:
    return getattr(session, "client_params", None)


def _protocol_version(session: Any) -> str:
    """The negotiated version (SDK 2.x says it; SDK 1.x keeps the client's initialize params)."""
    version = getattr(session, "protocol_version", None)
    if isinstance(version, str):
        return version
    params = _client_params(session)
    return str(getattr(params, "protocolVersion", None) or getattr(params, "protocol_version", ""))


def _has_roots_and_logging(session: Any) -> bool:
    return _protocol_version(session) < _WITHOUT_ROOTS_AND_LOGGING


def _client_name(session: Any) -> str:
    params = _client_params(session)
    info = getattr(params, "clientInfo", None) or getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "")


def _progress_token(meta: Any) -> str | int | None:
    """The request's ``_meta.progressToken`` (a model in SDK 1.x, a dict in SDK 2.x)."""
    if meta is None:
        return None
    if isinstance(meta, dict):
        token = meta.get("progress_token", meta.get("progressToken"))
    else:
        token = getattr(meta, "progressToken", None)
    return token if isinstance(token, (str, int)) else None


def _quietly(call: Callable[[], Any]) -> Any:
    """`call()` without the SDK's deprecation warnings (roots and logging, SEP-2577)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _root_path(uri: str) -> str | None:
    """The directory of a ``file://`` root, or None for another scheme."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.normpath(unquote(parsed.path)) or None


class _ClientRoots:
    """The workspace roots the client declares, served when the server was given no root.

    The server asks ``roots/list`` once the client is initialized (SDK 2.x; under SDK 1.x,
    which shows a server no session outside requests, before the first request), and after the
    client's ``notifications/roots/list_changed`` the next request asks again before it runs,
    so the call sees the change.
    Each root is one `Workspace` (one warm index), opened when it appears and closed when it
    goes; a root that cannot be opened is left out with a sentence the tools add to their text.
    With no roots (a client without them, an empty list), the registry's own workspace serves.
    """

    def __init__(self, registry: Registry, open_root: Callable[[str], Workspace] | None) -> None:
        self.registry = registry
        self.open_root = open_root
        self.fallback = registry.workspace
        self.stale = open_root is not None
        self.spaces: dict[str, Workspace] = {}
        self.lock = anyio.Lock()

    def changed(self) -> None:
        self.stale = self.open_root is not None

    async def refresh(self, session: Any) -> None:
        """Asks the client for its roots when they may have changed, and serves them (while
        another request asks, waits for its answer)."""
        if not self.stale and not self.lock.locked():
            return
        async with self.lock:
            if not self.stale:
                return
            self.stale = False
            capability = types.ClientCapabilities(roots=types.RootsCapability())
            if not _has_roots_and_logging(session) or not session.check_client_capability(
                capability
            ):
                return
            try:
                with anyio.fail_after(MCP_ROOTS_WAIT):
                    answer = await _quietly(session.list_roots)
            except Exception as error:  # noqa: BLE001 - the roots we had still serve
                logger.warning("roots/list failed (%s); serving the roots we had", error)
                return
            uris = [str(root.uri) for root in answer.roots]
            await anyio.to_thread.run_sync(self._serve, uris)

    async def refresh_quietly(self, session: Any) -> None:
        """`refresh` in a background task: an error is logged, never the server's end."""
        try:
            await self.refresh(session)
        except Exception:
            logger.exception("the client's roots could not be served")

    def _serve(self, uris: list[str]) -> None:
        """Opens the new roots, swaps the registry's workspace, closes the roots that went."""
        assert self.open_root is not None
        problems: list[str] = []
        spaces: dict[str, Workspace] = {}
        for uri in uris:
            path = _root_path(uri)
            if path is None:
                problems.append(f"the root {uri} is not served: only file:// roots are")
                continue
            if path in spaces:
                continue
            workspace = self.spaces.get(path)
            if workspace is None:
                try:
                    workspace = self.open_root(path)
                except Exception as error:  # noqa: BLE001 - told to the model, never a crash
                    problems.append(f"the root {path!r} is not served: {error}".rstrip("."))
                    logger.warning("client root %s not served: %s", path, error)
                    continue
                logger.info("serving the client's root %s", path)
            spaces[path] = workspace
        gone = [ws for path, ws in self.spaces.items() if path not in spaces]
        self.spaces = spaces
        if not spaces and not problems:
            self.registry.workspace = self.fallback
        elif len(spaces) == 1 and not problems:
            self.registry.workspace = next(iter(spaces.values()))
        else:
            self.registry.workspace = Roots(spaces.values(), problems)
        for workspace in gone:
            logger.info("the client's root %s is gone; closing it", workspace.root)
            workspace.close()

    def close(self) -> None:
        for workspace in self.spaces.values():
            workspace.close()


class _ClientLog:
    """``notifications/message`` to a client that set a level (``logging/setLevel``) on a
    protocol version that still has logging: the server's own lines of each call, at that
    level and above. Nothing is sent before the client sets a level."""

    def __init__(self) -> None:
        self.level: str | None = None

    def set_level(self, level: str) -> None:
        self.level = str(level)
        logger.info("the client set the log level to %s", level)

    async def send(self, session: Any, level: str, text: str, request_id: Any = None) -> None:
        if self.level is None or not _has_roots_and_logging(session):
            return
        if _LOG_LEVELS.index(level) < _LOG_LEVELS.index(self.level):
            return
        try:
            await _quietly(
                lambda: session.send_log_message(
                    level, text, logger="ripsight", related_request_id=request_id
                )
            )
        except Exception:  # a log line never fails a call
            logger.debug("a log message could not be sent", exc_info=True)


def _progress_text(name: str, elapsed: float, workspace: Any) -> str:
    """What a progress notification says: how long the call has run, and the index's phase."""
    text = f"{name} running for {elapsed:.1f} s"
    spaces = list(workspace) if isinstance(workspace, Roots) else [workspace]
    building = [ws.index_status() for ws in spaces if ws is not None]
    building = [status for status in building if status.get("state") == "building"]
    if building:
        files = sum(int(status.get("files") or 0) for status in building)
        text += f"; the index is building ({files:,} files so far), searching without it"
    return text


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
        self.in_flight = _InFlight()
        self.roots = _ClientRoots(registry, client_roots)
        self.log = _ClientLog()
        #: Starts a background task (`serve_stdio`'s task group), or None outside it.
        self.spawn: Callable[..., Any] | None = None
        # The person is asked through the client, unless the host gave its own callback.
        self.asker = Asker(registry.approval_deadline)
        if registry.approve is None:
            registry.approve = self.asker

    def _structured(self, session: Any) -> bool:
        """Whether this client gets ``outputSchema`` and ``structuredContent``."""
        return self.structured_content and _client_name(session) not in TEXT_ONLY_CLIENTS

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
        token = _progress_token(meta) if session is not None else None
        if token is None:
            return await self._call(request_id, name, arguments, session, asking)
        done = anyio.Event()
        reply: Any = None
        async with anyio.create_task_group() as group:
            group.start_soon(self._progress, session, token, request_id, name, done)
            try:
                reply = await self._call(request_id, name, arguments, session, asking)
            finally:
                done.set()
        assert reply is not None
        return reply

    async def _progress(
        self, session: Any, token: str | int, request_id: Any, name: str, done: anyio.Event
    ) -> None:
        """``notifications/progress`` every `MCP_PROGRESS_AFTER` seconds until the call ends:
        the seconds it has run (the progress, no total) and what it waits for."""
        started = time.perf_counter()
        while True:
            with anyio.move_on_after(MCP_PROGRESS_AFTER):
                await done.wait()
            if done.is_set():
                return
            elapsed = time.perf_counter() - started
            text = _progress_text(name, elapsed, self.registry.workspace)
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
        name: str,
        arguments: dict[str, Any] | None,
        session: Any,
        asking: Asking | None,
    ) -> Any:
        call = ToolCall(id=str(request_id), name=name, arguments=arguments or {})
        state = _Call(name)
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
                return result, _call_result(result, spec, structured, budget)
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
        description="Fast, bounded, read-only glob, grep and read_file for coding agents.",
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
