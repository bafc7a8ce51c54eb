"""Follow-up messages: the assistant turn carrying the calls, then the results, per provider.

    >>> calls = acc.drain()
    >>> results = reg.execute_many(calls)
    >>> messages += openai_chat_messages(calls, results, text=acc.text)
    >>> input_items += openai_responses_items(calls, results)
    >>> messages += anthropic_messages(calls, results, text=acc.text)

Each call gets exactly one result, matched by call id (in call order); a call without a result
is answered with an error result saying it was not run, so the conversation stays valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from .types import ToolCall, ToolResult
from .validation import ArgumentsError, parse_arguments

__all__ = [
    "anthropic_messages",
    "follow_up",
    "openai_chat_messages",
    "openai_responses_items",
    "pair_results",
]


def _arguments_text(call: ToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return orjson.dumps(dict(call.arguments)).decode()


def _arguments_object(call: ToolCall) -> dict[str, Any]:
    try:
        value, _ = parse_arguments(call.arguments)
    except ArgumentsError:
        return {}
    return value


def pair_results(
    calls: Sequence[ToolCall], results: Sequence[ToolResult]
) -> list[tuple[ToolCall, ToolResult]]:
    """Each call with its result (by call id, else by position); a missing one becomes an error."""
    by_id: dict[str, list[ToolResult]] = {}
    for result in results:
        by_id.setdefault(result.call_id, []).append(result)
    pairs: list[tuple[ToolCall, ToolResult]] = []
    for position, call in enumerate(calls):
        matching = by_id.get(call.id)
        if matching:
            result = matching.pop(0)
        elif position < len(results) and results[position].call_id in ("", None):
            result = results[position]
        else:
            result = ToolResult(
                call_id=call.id,
                content="This call was not run (no result was produced for it). Call it again.",
                is_error=True,
                name=call.name,
                meta={"error_type": "missing_result"},
            )
        pairs.append((call, result))
    return pairs


def openai_chat_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[dict[str, Any]]:
    """Chat Completions: one assistant message with ``tool_calls``, then one ``tool`` message per call."""
    pairs = pair_results(calls, results)
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call)},
            }
            for call, _ in pairs
        ],
    }
    messages = [assistant]
    for call, result in pairs:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
    return messages


def openai_responses_items(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[dict[str, Any]]:
    """Responses API input items: the ``function_call`` items, then one ``function_call_output`` each."""
    pairs = pair_results(calls, results)
    items: list[dict[str, Any]] = []
    if text:
        items.append({"role": "assistant", "content": text})
    for call, _ in pairs:
        items.append(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": _arguments_text(call),
            }
        )
    for call, result in pairs:
        items.append({"type": "function_call_output", "call_id": call.id, "output": result.content})
    return items


def anthropic_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[dict[str, Any]]:
    """Messages API: the assistant message with ``tool_use`` blocks, then one user message with
    a ``tool_result`` block per call (Anthropic requires all results in that one message)."""
    pairs = pair_results(calls, results)
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for call, _ in pairs:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _arguments_object(call)}
        )
    blocks: list[dict[str, Any]] = []
    for call, result in pairs:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": result.content,
        }
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "assistant", "content": content}, {"role": "user", "content": blocks}]


_BUILDERS = {
    "openai": openai_chat_messages,
    "openai-responses": openai_responses_items,
    "anthropic": anthropic_messages,
}


def follow_up(
    fmt: str,
    calls: Sequence[ToolCall | Mapping[str, Any]],
    results: Sequence[ToolResult],
    text: str | None = None,
) -> list[dict[str, Any]]:
    """The follow-up messages for ``fmt`` = "openai", "openai-responses" or "anthropic"."""
    builder = _BUILDERS.get(fmt)
    if builder is None:
        raise ValueError(f"unknown format {fmt!r}; use one of: {', '.join(_BUILDERS)}")
    return builder([ToolCall.from_any(c) for c in calls], results, text)
