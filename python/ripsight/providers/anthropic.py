"""Anthropic: tool definitions and follow-up messages for the Messages API.

    >>> tools = definitions(builtin_tools())
    >>> messages += messages_for(calls, results, text=acc.text)

The return types are the `anthropic` SDK's own parameter types (for type checkers only).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..types import ToolCall, ToolResult, ToolSpec
from ._common import arguments_object, pair_results

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        ToolParam,
        ToolResultBlockParam,
    )

__all__ = ["definitions", "messages_for"]


def definitions(specs: Sequence[ToolSpec]) -> list[ToolParam]:
    """Messages API ``tools``."""
    out: list[ToolParam] = []
    for spec in specs:
        schema: dict[str, object] = copy.deepcopy(dict(spec.parameters))
        out.append({"name": spec.name, "description": spec.description, "input_schema": schema})
    return out


def messages_for(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[MessageParam]:
    """The assistant message with ``tool_use`` blocks, then one user message with a
    ``tool_result`` block per call (Anthropic requires all results in that one message)."""
    pairs = pair_results(calls, results)
    content: list[ContentBlockParam] = []
    if text:
        content.append({"type": "text", "text": text})
    for call, _ in pairs:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments_object(call)}
        )
    blocks: list[ContentBlockParam] = []
    for call, result in pairs:
        block: ToolResultBlockParam = {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": result.content,
        }
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "assistant", "content": content}, {"role": "user", "content": blocks}]
