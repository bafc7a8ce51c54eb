"""Anthropic: tool definitions and follow-up messages for the Messages API.

    >>> tools = definitions(builtin_tools())
    >>> messages += messages_for(calls, results, text=acc.text)

The return types are the `anthropic` SDK's own parameter types (for type checkers only).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ..types import ToolCall, ToolResult, ToolSpec
from ._common import (
    LARGE_ARGUMENTS_CHARS,
    arguments_object,
    compact_arguments_object,
    compact_result_text,
    older_calls,
    pair_results,
    plain,
)

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        ImageBlockParam,
        MessageParam,
        TextBlockParam,
        ToolParam,
        ToolResultBlockParam,
    )

__all__ = ["compact", "definitions", "messages_for"]


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
    ``tool_result`` block per call (Anthropic requires all results in that one message). A
    result with images has a list as its content: the text block, then an ``image`` block
    (base64 source) per image."""
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
            "content": _result_content(result),
        }
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "assistant", "content": content}, {"role": "user", "content": blocks}]


def _result_content(result: ToolResult) -> str | list[TextBlockParam | ImageBlockParam]:
    """A ``tool_result``'s content: the text, and an image block (base64 source) per image."""
    if not result.images:
        return result.content
    parts: list[TextBlockParam | ImageBlockParam] = [{"type": "text", "text": result.content}]
    for image in result.images:
        parts.append(
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": image.media_type,  # type: ignore[typeddict-item]
                    "data": image.base64,
                },
            }
        )
    return parts


def _blocks(message: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def compact(messages: Iterable[Any], keep_recent: int) -> list[dict[str, Any]]:
    """Messages API messages in which every tool turn (an assistant message with ``tool_use``
    blocks) but the last `keep_recent` has its ``tool_result`` blocks in compact form (a
    string) and its large ``input`` clipped. No block is removed, so every ``tool_use`` keeps
    its ``tool_result``."""
    out: list[dict[str, Any]] = [plain(m) for m in messages]
    names: dict[str, str] = {}
    turns: list[list[str]] = []
    for message in out:
        uses = _blocks(message, "tool_use") if message.get("role") == "assistant" else []
        if uses:
            turns.append([str(block.get("id")) for block in uses])
            names.update({str(block.get("id")): str(block.get("name", "")) for block in uses})
    older = older_calls(turns, keep_recent)
    for message in out:
        for block in _blocks(message, "tool_result"):
            call_id = str(block.get("tool_use_id", ""))
            if call_id in older:
                block["content"] = compact_result_text(
                    names.get(call_id, ""), call_id, block.get("content")
                )
        for block in _blocks(message, "tool_use"):
            value = block.get("input")
            if str(block.get("id")) not in older or not isinstance(value, Mapping):
                continue
            if len(orjson.dumps(value, default=str)) > LARGE_ARGUMENTS_CHARS:
                block["input"] = compact_arguments_object(value)
    return out
