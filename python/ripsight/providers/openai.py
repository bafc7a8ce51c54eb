"""OpenAI: tool definitions and follow-up messages for Chat Completions and the Responses API.

    >>> tools = chat_definitions(builtin_tools(), strict=True)
    >>> messages += chat_messages(calls, results, text=acc.text)
    >>> input_items += responses_items(calls, results)

The return types are the `openai` SDK's own parameter types (imported for type checkers only),
so passing them to ``client.chat.completions.create(tools=..., messages=...)`` type-checks.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..types import ToolCall, ToolResult, ToolSpec
from ._common import arguments_text, pair_results, strict_schema

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
    )
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam

__all__ = ["chat_definitions", "chat_messages", "responses_definitions", "responses_items"]


def _parameters(spec: ToolSpec, strict: bool) -> dict[str, object]:
    if strict:
        return strict_schema(spec.parameters)
    schema: dict[str, object] = copy.deepcopy(dict(spec.parameters))
    return schema


def chat_definitions(
    specs: Sequence[ToolSpec], strict: bool = False
) -> list[ChatCompletionFunctionToolParam]:
    """Chat Completions ``tools``; `strict` gives strict-mode schemas (see `strict_schema`)."""
    out: list[ChatCompletionFunctionToolParam] = []
    for spec in specs:
        tool: ChatCompletionFunctionToolParam = {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": _parameters(spec, strict),
            },
        }
        if strict:
            tool["function"]["strict"] = True
        out.append(tool)
    return out


def responses_definitions(
    specs: Sequence[ToolSpec], strict: bool = False
) -> list[FunctionToolParam]:
    """Responses API ``tools`` (function tools); `strict` as for `chat_definitions`."""
    return [
        {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": _parameters(spec, strict),
            "strict": strict,
        }
        for spec in specs
    ]


def chat_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[ChatCompletionMessageParam]:
    """One assistant message with ``tool_calls``, then one ``tool`` message per call."""
    pairs = pair_results(calls, results)
    assistant: ChatCompletionAssistantMessageParam = {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call)},
            }
            for call, _ in pairs
        ],
    }
    messages: list[ChatCompletionMessageParam] = [assistant]
    for call, result in pairs:
        reply: ChatCompletionToolMessageParam = {
            "role": "tool",
            "tool_call_id": call.id,
            "content": result.content,
        }
        messages.append(reply)
    return messages


def responses_items(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[ResponseInputItemParam]:
    """Responses API input items: the ``function_call`` items, then a ``function_call_output``
    for each."""
    pairs = pair_results(calls, results)
    items: list[ResponseInputItemParam] = []
    if text:
        items.append({"role": "assistant", "content": text})
    for call, _ in pairs:
        items.append(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": arguments_text(call),
            }
        )
    for call, result in pairs:
        items.append({"type": "function_call_output", "call_id": call.id, "output": result.content})
    return items
