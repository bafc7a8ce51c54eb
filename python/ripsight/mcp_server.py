"""`ripsight mcp`: the registry's tools served over MCP (stdio), on the official MCP Python SDK.

    >>> registry = default_registry("/path/to/repo")
    >>> anyio.run(serve_stdio, registry)          # what `ripsight mcp --root /path/to/repo` runs

The server is a thin adapter: tool names, descriptions, input schemas and annotations come from
`Registry.definitions("mcp")`; every call goes through the registry's never-throw `execute`
(argument checking, guidance on errors, middle truncation), so an MCP client sees exactly the
text an embedded agent would. Beside that text, a successful call returns the engine's typed
result (`ripsight.to_dict`) as ``structuredContent``, described by an ``outputSchema`` per tool.

Calls run in worker threads (the engine releases the GIL), so requests in flight at the same
time are served concurrently. Logging goes to stderr; stdout carries only the protocol.

Requires the optional extra: ``pip install 'ripsight[mcp]'`` (MCP Python SDK 2.x).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import _core
from .limits import DEFAULT_LIMITS, ToolLimits
from .registry import Registry
from .session import NoReadState
from .tools import ENGINE_RESULT_KEY
from .types import ToolCall, ToolResult
from .workspace import to_dict

__all__ = ["OUTPUT_SCHEMAS", "build_server", "output_schemas", "serve_stdio", "tool_definitions"]

logger = logging.getLogger("ripsight.mcp")

# -- output schemas: the JSON shape of `ripsight.to_dict(result)` ---------------------------------


def output_schemas(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, dict[str, Any]]:
    """``outputSchema`` of each tool: the shape of `ripsight.to_dict` of the engine's result.

    Generated from the engine's one declaration of each result (``GrepResult.SCHEMA``...: field
    names, types and descriptions); only the line caps are stated as `limits` sets them."""
    schemas = {
        "glob": copy.deepcopy(_core.GlobResult.SCHEMA),
        "grep": copy.deepcopy(_core.GrepResult.SCHEMA),
        "read_file": copy.deepcopy(_core.ReadResult.SCHEMA),
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


# -- the server ----------------------------------------------------------------------------------


# An MCP server outlives conversations (Claude Desktop keeps it running across chats) and cannot
# tell them apart: every read is delivered in full (see `ripsight.session.NoReadState`).
_NoReadState = NoReadState


def _call_result(result: ToolResult, structured_content: bool) -> types.CallToolResult:
    structured: dict[str, Any] | None = None
    if structured_content and not result.is_error:
        engine_result = result.meta.get(ENGINE_RESULT_KEY)
        if engine_result is not None:
            try:
                structured = to_dict(engine_result)
            except Exception:  # the text still answers the call
                logger.exception("%s: the typed result could not be converted", result.name)
        elif result.name in OUTPUT_SCHEMAS:
            logger.warning("%s returned no typed result; structuredContent left out", result.name)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.content)],
        structured_content=structured,
        is_error=result.is_error,
    )


def build_server(
    registry: Registry,
    *,
    name: str = "ripsight",
    max_concurrent_calls: int = 8,
    structured_content: bool = True,
) -> Server[Any]:
    """An MCP `Server` exposing the registry's tools; run it with `serve_stdio` or the SDK.

    Args:
        registry: the tools and their workspace; its read state is replaced by one that
            remembers nothing (see `_NoReadState`).
        name: the server name reported at initialization.
        max_concurrent_calls: tool calls running at the same time in worker threads; further
            requests wait their turn.
        structured_content: declare an ``outputSchema`` per tool and return the typed result
            as ``structuredContent`` beside the text (default). Some clients hand the model
            the structured JSON in place of the text; False keeps them on the bounded text.
    """
    from . import __version__

    registry.read_state = _NoReadState()
    tools = [
        types.Tool.model_validate(tool)
        for tool in tool_definitions(registry, structured=structured_content)
    ]
    limiter = anyio.CapacityLimiter(max_concurrent_calls)
    root = registry.workspace.root if registry.workspace is not None else None

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool.model_copy(deep=True) for tool in tools])

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        call = ToolCall(
            id=str(ctx.request_id),
            name=params.name,
            arguments=params.arguments if params.arguments is not None else {},
        )

        def answer() -> tuple[ToolResult, types.CallToolResult]:
            # Converting the typed result is Python work too: keep it off the event loop.
            result = registry.execute(call)
            return result, _call_result(result, structured_content)

        result, answered = await anyio.to_thread.run_sync(answer, limiter=limiter)
        logger.info(
            "%s %s in %.1f ms%s",
            call.name,
            "failed" if result.is_error else "answered",
            result.meta.get("duration_ms", 0.0),
            f" ({result.meta.get('error_type')})" if result.is_error else "",
        )
        return answered

    instructions = (
        "Read-only tools over one directory"
        + (f" ({root})" if root else "")
        + ": glob finds files by name pattern, grep searches their contents with a regex, "
        "read_file reads a file's numbered lines. Paths are relative to that directory; "
        "nothing outside it can be read, and results are bounded (each says how to get more)."
    )
    return Server(
        name,
        version=__version__,
        title="ripsight",
        description="Fast, bounded, read-only glob, grep and read_file for coding agents.",
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(
    registry: Registry, *, max_concurrent_calls: int = 8, structured_content: bool = True
) -> None:
    """Serves the registry's tools on stdin/stdout until the client closes stdin."""
    server = build_server(
        registry, max_concurrent_calls=max_concurrent_calls, structured_content=structured_content
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
