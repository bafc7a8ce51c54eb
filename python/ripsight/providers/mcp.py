"""MCP: tool definitions as JSON (camelCase ``Tool`` objects), for `ripsight.mcp_server` and any
MCP server a host builds."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ..types import ToolSpec

__all__ = ["definitions"]


def definitions(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """MCP ``Tool`` objects; the annotations follow each tool's effect class."""
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"name": spec.name}
        if spec.title:
            tool["title"] = spec.title
        tool["description"] = spec.description
        tool["inputSchema"] = copy.deepcopy(dict(spec.parameters))
        tool["annotations"] = {
            "title": spec.title or spec.name,
            "readOnlyHint": spec.read_only,
            "destructiveHint": not spec.read_only,
            "idempotentHint": spec.read_only,
            "openWorldHint": False,
        }
        out.append(tool)
    return out
